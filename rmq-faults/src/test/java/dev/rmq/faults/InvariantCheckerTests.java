package dev.rmq.faults;

import dev.rmq.faults.check.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on hand-written runs as a whole: a run that breaks several invariants fails naming each, a clean run
 * passes with its counts, and no delivery comes before its due time, however the sends behind a delivery merged into
 * it. Losses, duplicates and overlaps have their own classes beside this one.
 */
class InvariantCheckerTests extends HandWrittenRun {

    @Test
    void aRunWithAPlantedLossAnEarlyDeliveryAndAnOverlapFailsNamingAllThree() {
        long due = T0 / 1000 + 3000;
        sent(0, PRIORITY, "n.p.lost", 1, false, false, T0, 50);
        sent(1, FIXED, "n.f.early", false, T0, due);
        ran("c1-1", "f-0", FIXED, 0, "n.f.early", 1, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", due - 1, due, due);
        sent(2, PRIORITY, "n.p.a", 3, false, false, T0, 50);
        sent(3, PRIORITY, "n.p.b", 3, false, false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 3, "n.p.a", 2, 1, T0 + S, T0 + 3 * S, "ok", T0 / 1000 + 1000, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.b", 3, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", T0 / 1000 + 2000, -1, 0);

        Verdict verdict = check();

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.figure("lost_unexplained")).isEqualTo(1);
        assertThat(verdict.figure("early")).isEqualTo(1);
        assertThat(verdict.figure("overlap_violations")).isEqualTo(1);
        assertThat(verdict.failures()).containsExactlyInAnyOrder(
                "1 message(s) lost without a master SIGKILL right after their send to explain it",
                "1 delivery(ies) before the due time",
                "1 time(s) two workers ran one slot at once");
    }

    @Test
    void aCleanRunPassesAndCountsMergesAndMessages() {
        sent(0, MERGE, "n.m.1", false, T0, 1000);
        sent(1, MERGE, "n.m.1", true, T0 + 100_000, 1000);
        sent(2, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", MERGE, "n.m.1", 1, T0 + 2 * S);
        consumed("c1-1", PRIORITY, "n.p.2", 2, T0 + 3 * S);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("sent")).isEqualTo(3);
        assertThat(result.figure("merged")).isEqualTo(1);
        assertThat(result.figure("consumed_unique")).isEqualTo(2);
        assertThat(result.figure("lost")).isZero();
    }

    @Test
    void aLineAKillCutShortEvenInsideACharacterIsSkippedAndTheRestOfTheRunJudged() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, "n.p.2", 1, T0 + 2 * S);
        // c1-1 was killed while it wrote an event: its file ends in half a line, cut inside a character
        byte[] line = ("{\"event\":\"ack-failed\",\"micros\":" + (T0 + 3 * S) + ",\"error\":\"délai")
                .getBytes(StandardCharsets.UTF_8);
        cutShort("c1-1", Arrays.copyOf(line, line.length - 4));

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("consumed_unique")).isEqualTo(2);
        assertThat(result.details().get("deliveries")).isEqualTo(2L);
    }

    @Test
    void aDeliveryBeforeItsFixedTimeByTheRedisClockIsEarly() {
        long due = T0 / 1000 + 3000;
        sent(0, FIXED, "n.f.1", false, T0, due);
        ran("c1-1", "f-0", FIXED, 0, "n.f.1", 0, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", due - 1, due, due);

        Verdict result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("before the due time"));
    }

    @Test
    void aRangeMergeDeliveryBeforeItsSendPlusTimeRangeIsEarlyWhateverDueTimeRmqReports() {
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        // rmq reports the message due at +2.4 s, and the handler starts at +2.5 s by the Redis clock
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 0, 1, T0 + 2500 * MS, T0 + 2501 * MS, "ok", T0 / 1000 + 2500,
                T0 / 1000 + 2400, 0);

        Verdict result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.details().get("early_by_rule")).isEqualTo(Map.of("before its creating send + timeRange", 1L));
    }

    @Test
    void aRangeMergeKeepsTheDueTimeOfTheSendThatCreatedIt() {
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        sent(1, MERGE, "n.m.1", true, T0 + 500 * MS, 1000);
        // the merge's own range would make it due at +1.5 s; the message was due at +3 s and is delivered then
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 1, 1, T0 + 3000 * MS, T0 + 3001 * MS, "ok", T0 / 1000 + 3000,
                T0 / 1000 + 3000, 0);
        sent(2, MERGE, "n.m.2", false, T0, 3000);
        sent(3, MERGE, "n.m.2", true, T0 + 500 * MS, 1000);
        ran("c1-1", "m-0", MERGE, 0, "n.m.2", 3, 1, T0 + 2000 * MS, T0 + 2001 * MS, "ok", T0 / 1000 + 2000,
                T0 / 1000 + 1500, 0);

        Verdict result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.details().get("early_examples").toString()).contains("n.m.2").doesNotContain("n.m.1 ");
    }

    @Test
    void aFailedSendMadeAfterADeliveryFailedMayMergeIntoItsRetryAndBeDeliveredAtTheRetrysDueTime() {
        // the delivery failed before the send's call: the send merged into the retry, due at 2.4 s
        Verdict result = failedSendAfterADeliveryThatEnded(T0 + 1200 * MS);

        assertThat(result.figure("early")).isZero();
        assertThat(result.figure("lost")).isZero();
        assertThat(result.details().get("failed_sends_behind_a_delivery")).isEqualTo(0L);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aFailedSendMadeWhileADeliveryOfItsKeyRanWentBehindItAndIsNotDueBeforeItsOwnTimeRange() {
        // the delivery runs on past the failed send's call, so that send found it in flight and parked
        Verdict result = failedSendAfterADeliveryThatEnded(T0 + 2200 * MS);

        assertThat(result.details().get("failed_sends_behind_a_delivery")).isEqualTo(1L);
        assertThat(result.figure("early")).isEqualTo(1);
    }

    @Test
    void aFailedSendMadeWhileTheConsumerOfADeliveryLayKilledWentBehindItUntilItsLeaseRanOut() {
        long ms = T0 / 1000;
        sent(0, MERGE, "n.m.1", false, T0, 1000);
        // the handler never ends: its process is killed at 1.2 s, and its lease runs until 4.1 s
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 0, 1, T0 + 1100 * MS, -1, "none", ms + 1100, ms + 1000, 0);
        killed("c1-1", T0 + 1200 * MS);
        failedSend(1, MERGE, "n.m.1", T0 + 2 * S, 1000);
        ran("c2-1", "m-0", MERGE, 0, "n.m.1", 1, 1, T0 + 2400 * MS, T0 + 2500 * MS, "ok", ms + 2400, ms + 2400, 0);

        Verdict result = check();

        assertThat(result.details().get("failed_sends_behind_a_delivery")).isEqualTo(1L);
        assertThat(result.figure("early")).isEqualTo(1);
    }

    @Test
    void aFailedSendWhoseCallWasStillUnderWayWhenADeliveryBeganMayHaveMadeTheNextMessageItself() {
        long ms = T0 / 1000;
        sent(0, MERGE, "n.m.1", false, T0, 1000);
        // stuck on a stalled master from 0.1 s to 5 s: applied at 4 s, after the first message was consumed, it made a
        // new message due at 5 s
        failedSend(1, MERGE, "n.m.1", T0 + 100 * MS, T0 + 5 * S, 1000);
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 0, 1, T0 + 1000 * MS, T0 + 1001 * MS, "ok", ms + 1000, ms + 1000, 0);
        // merged into that message, which keeps its due time, before its own time range is over
        failedSend(2, MERGE, "n.m.1", T0 + 4500 * MS, 1000);
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 2, 1, T0 + 5000 * MS, T0 + 5001 * MS, "ok", ms + 5000, ms + 5000, 0);

        Verdict result = check();

        assertThat(result.details().get("failed_sends_behind_a_delivery")).isEqualTo(1L);
        assertThat(result.figure("early")).isZero();
    }

    /**
     * A range-merge message (a time range of 1 s) whose first delivery fails, ending at {@code end}; a send of its
     * key at 2 s that failed (its own time range ends at 3 s); and a delivery of that send's payload at 2.4 s.
     */
    private Verdict failedSendAfterADeliveryThatEnded(long end) {
        long ms = T0 / 1000;
        sent(0, MERGE, "n.m.1", false, T0, 1000);
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 0, 1, T0 + 1100 * MS, end, "err", ms + 1100, ms + 1000, 0);
        failedSend(1, MERGE, "n.m.1", T0 + 2 * S, 1000);
        ran("c1-1", "m-0", MERGE, 0, "n.m.1", 1, 2, T0 + 2400 * MS, T0 + 2500 * MS, "ok", ms + 2400, ms + 2400, 0);
        return check();
    }
}
