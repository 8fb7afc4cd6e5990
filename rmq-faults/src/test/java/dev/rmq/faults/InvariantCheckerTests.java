package dev.rmq.faults;

import dev.rmq.faults.check.InvariantChecker;
import dev.rmq.faults.check.JournalRecord;
import dev.rmq.faults.check.Verdict;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on hand-written runs: each invariant it guards is broken once on purpose, so that a harness run
 * that passes means something, and each allowance is shown to hold only for what it names. The events go through
 * the same files and reader as a real run's.
 */
class InvariantCheckerTests {

    private static final String MERGE = Workload.topic(Deployment.STANDALONE, TopicType.RANGE_MERGE).name();
    private static final String PRIORITY = Workload.topic(Deployment.STANDALONE, TopicType.PRIORITY).name();
    private static final String FIXED = Workload.topic(Deployment.STANDALONE, TopicType.FIXED_TIME).name();
    private static final String CLUSTER_PRIORITY = Workload.topic(Deployment.CLUSTER, TopicType.PRIORITY).name();
    private static final String AT_MOST_ONCE = "faults-amo-s";
    private static final String TTL = "faults-ttl-s";
    private static final long T0 = 1_800_000_000_000_000L;
    private static final long S = 1_000_000;
    private static final long MS = 1_000;

    @TempDir
    Path dir;

    /** Events by the file they go to: the producer's, the harness's, one per consumer incarnation. */
    private final Map<String, List<HarnessEvent>> files = new LinkedHashMap<>();
    private final Set<String> incarnations = new LinkedHashSet<>();
    private int faults;
    /** What the run's journal held at its end. */
    private final List<JournalRow> journal = new ArrayList<>();

    private void event(String file, HarnessEvent event) {
        files.computeIfAbsent(file, k -> new ArrayList<>()).add(event);
    }

    private void sent(long seq, String topic, String key, boolean merged, long at, long value) {
        sent(seq, topic, key, 0, merged, false, at, value);
    }

    private void sent(long seq, String topic, String key, int slot, boolean merged, boolean durable, long at, long value) {
        event("producer", new HarnessEvent.Sent(at + 500, seq, topic, key, slot, merged, durable, at, value));
    }

    private void failedSend(long seq, String topic, String key, long at, long value) {
        event("producer", new HarnessEvent.SendFailed(at + 500, seq, topic, key, false, at, value,
                "RmqUnavailableException: down"));
    }

    /** A handler run whose lease ran until 3 s after its start. */
    private void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
                     long end, String outcome, long redisNowMs, long dueMs, long fixedMs) {
        ran(inc, worker, topic, slot, key, seq, attempt, start, end, outcome, redisNowMs, dueMs, fixedMs,
                start / 1000 + 3000);
    }

    /** A handler run of {@code worker} in incarnation {@code inc}; end -1 leaves it without an end. */
    private void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
                     long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs) {
        ranInCall(inc, worker, topic, slot, key, seq, attempt, start, end, outcome, redisNowMs, dueMs, fixedMs, leaseMs,
                start);
    }

    /** A handler run, as {@link #ran}, of a handler call that began at {@code call} (a batch listener's). */
    private void ranInCall(String inc, String worker, String topic, int slot, String key, long seq, int attempt,
                           long start, long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs,
                           long call) {
        if (incarnations.add(inc)) {
            event("harness", new HarnessEvent.ProcessStarted(T0 - 10 * S, inc));
        }
        event(inc, new HarnessEvent.Delivered(start, inc, worker, topic, slot, key, seq, false, attempt, redisNowMs, dueMs,
                fixedMs, leaseMs, 1, call));
        if (end >= 0) {
            event(inc, new HarnessEvent.Handled(end, inc, worker, topic, slot, key, seq, attempt, outcome));
        }
    }

    /** A successful 1 ms delivery by worker p-0 of {@code inc}, in slot 0. */
    private void consumed(String inc, String topic, String key, long seq, long start) {
        consumed(inc, topic, 0, key, seq, start);
    }

    private void consumed(String inc, String topic, int slot, String key, long seq, long start) {
        ran(inc, "p-0", topic, slot, key, seq, 1, start, start + 1000, "ok", start / 1000, -1, 0);
    }

    /** rmq reported that an ack call of a worker failed. */
    private void ackFailed(String inc, long at, String worker, String topic, int slot) {
        event(inc, new HarnessEvent.AckFailed(at, inc, worker, topic, slot, List.of("k"), "RedisTimeoutException"));
    }

    /** rmq reported that the lease of {@code key} ran out before its ack. */
    private void stale(String inc, long at, String worker, String topic, int slot, String key) {
        event(inc, new HarnessEvent.Acknowledged(at, inc, worker, topic, slot, key, "stale"));
    }

    /** rmq reported its worker fenced out of a slot at an ack. */
    private void fencedAtAck(String inc, long at, String worker, String topic, int slot) {
        event(inc, new HarnessEvent.SlotFenced(at, inc, worker, topic, slot, "ack"));
    }

    private void sessionLost(String inc, long at) {
        event(inc, new HarnessEvent.SessionChanged(at, inc, "LOST", "0x1"));
    }

    private void killed(String inc, long at) {
        event("harness", new HarnessEvent.ProcessEnded(at, inc, true));
    }

    private void paused(String inc, long from, long to) {
        event("harness", new HarnessEvent.ProcessPaused(from, inc, to));
    }

    private void dead(String topic, int slot, String key, long seq, String reason, String lastError, int attempts) {
        event("harness", new HarnessEvent.DeadAtEnd(T0 + 900 * S, topic, slot, key, seq, false, reason, lastError,
                attempts));
    }

    /** A row of the journal of a {@link #PRIORITY} key, written after every row given before it. */
    private void journaled(String key, long messageId, String state, long at) {
        journal.add(new JournalRow(PRIORITY, key, new JournalRecord.Transition(journal.size() + 1, messageId, state, at)));
    }

    /** Send {@code seq} of a {@link #PRIORITY} key, on slot 0, delivered once by {@code inc} at {@code at} and committed. */
    private void committedBy(long seq, String key, String inc, long at) {
        sent(seq, PRIORITY, key, 0, false, false, T0, 50);
        consumed(inc, PRIORITY, 0, key, seq, at);
    }

    private record JournalRow(String topic, String key, JournalRecord.Transition transition) {
    }

    private void fault(FaultKind kind, String target, long inject, long heal, Set<String> slots) {
        event("harness", new HarnessEvent.FaultInjected(inject, ++faults, kind.cliName(), target, heal, 3 * S, slots, ""));
    }

    /** Writes the events as a run would, each file with its own {@link EventLog}, and checks the run. */
    private Verdict check() {
        List<HarnessEvent.Topic> topics = new ArrayList<>();
        for (Deployment deployment : Deployment.values()) {
            for (TopicDefinition topic : Workload.topics(deployment)) {
                topics.add(new HarnessEvent.Topic(topic.name(), topic.type().name(), deployment.cliName(),
                        topic.delivery().name(), topic.ttl().toMillis()));
            }
        }
        files.computeIfAbsent("harness", k -> new ArrayList<>()).add(0,
                new HarnessEvent.RunStarted(T0 - 20 * S, Workload.SESSION_TIMEOUT_MS, Workload.LEASE.toMillis(), topics));
        files.get("harness").add(new HarnessEvent.RunEnded(T0 + 1000 * S));
        files.forEach((name, events) -> {
            try (EventLog log = new EventLog(dir.resolve(name + ".events"))) {
                events.forEach(log::write);
            }
        });
        return InvariantChecker.check(dir, new JournalRecord() {
            @Override
            public List<JournalRecord.Transition> of(String topic, String key) {
                return journal.stream().filter(row -> row.topic().equals(topic) && row.key().equals(key))
                        .map(JournalRow::transition).toList();
            }

            @Override
            public long firstRestoredFrom(long messageId, long fromMicros, long toMicros) {
                return journal.stream().map(JournalRow::transition).filter(t -> t.state().equals("restored")
                        && t.messageId() >= messageId && t.atMicros() >= fromMicros && t.atMicros() <= toMicros)
                        .mapToLong(JournalRecord.Transition::id).min().orElse(Long.MAX_VALUE);
            }
        });
    }

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

    // ---- accounting --------------------------------------------------------------------------------------------

    @Test
    void anAtMostOnceMessageMayBeLostByAFailedHandlerOrWithoutAnyDelivery() {
        sent(0, AT_MOST_ONCE, "n.a.1", false, T0, 100);
        ran("c1-1", "a-0", AT_MOST_ONCE, 0, "n.a.1", 0, 1, T0 + S, T0 + S + MS, "failed", T0 / 1000 + 1000, -1, 0);
        sent(1, AT_MOST_ONCE, "n.a.2", false, T0, 100);
        sent(2, AT_MOST_ONCE, "n.a.3", false, T0, 100);
        consumed("c1-1", AT_MOST_ONCE, "n.a.3", 2, T0 + 2 * S);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("lost_at_most_once")).isEqualTo(2);
        assertThat(result.figure("lost")).isZero();
    }

    @Test
    void anAtMostOnceMessageDeliveredTwiceFailsTheRunWhateverHappened() {
        sent(0, AT_MOST_ONCE, "n.a.1", false, T0, 100);
        ran("c1-1", "a-0", AT_MOST_ONCE, 0, "n.a.1", 0, 1, T0 + S, T0 + S + MS, "failed", T0 / 1000 + 1000, -1, 0);
        killed("c1-1", T0 + S + 2 * MS);
        consumed("c2-1", AT_MOST_ONCE, "n.a.1", 0, T0 + 5 * S);

        Verdict result = check();

        assertThat(result.failures()).containsExactly("1 at-most-once message(s) delivered more than once");
        assertThat(result.figure("at_most_once_delivered_twice")).isEqualTo(1);
    }

    @Test
    void failedAtMostOnceSendsThatEachStoredAMessageDeliveredOnceEachAreNoSecondDelivery() {
        failedSend(0, AT_MOST_ONCE, "n.a.1", T0, 100);
        consumed("c1-1", AT_MOST_ONCE, "n.a.1", 0, T0 + S);
        failedSend(1, AT_MOST_ONCE, "n.a.1", T0 + S + MS, 101);
        failedSend(2, AT_MOST_ONCE, "n.a.1", T0 + 2 * S, 102);
        consumed("c1-1", AT_MOST_ONCE, "n.a.1", 2, T0 + 3 * S);

        Verdict result = check();

        assertThat(result.figure("at_most_once_delivered_twice")).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void anExpiredMessageIsDeadWithItsReasonAndCounted() {
        sent(0, TTL, "n.t.1", false, T0, 50);
        dead(TTL, 0, "n.t.1", 0, "expired", "its time to live ran out before it was delivered", 0);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("expired")).isEqualTo(1);
        assertThat(result.figure("dead")).isEqualTo(1);
        assertThat(result.figure("lost")).isZero();
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
    void aMessageNeitherConsumedNorDeadIsLost() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);

        Verdict result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
        assertThat(result.figure("lost_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("lost without a master SIGKILL"));
    }

    @Test
    void aLostDurableMessageFailsEvenWhenTheMasterOfItsSlotWasKilledRightAfterTheSend() {
        sent(0, CLUSTER_PRIORITY, "d.p.1", 3, false, true, T0, 50);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        Verdict result = check();

        assertThat(result.figure("lost_durable")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("durable message(s) lost"));
    }

    @Test
    void aNonDurableSendAcknowledgedJustBeforeItsMasterWasKilledMayBeLost() {
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        sent(1, CLUSTER_PRIORITY, "n.p.2", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.2", 1, T0 + S);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        Verdict result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
        assertThat(result.figure("lost_non_durable")).isEqualTo(1);
        assertThat(result.figure("lost_unexplained")).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aMasterKillExcusesNoLossOfAnotherMastersSlotNorOfASendReplicatedLongBefore() {
        // slot 5 lived on another master; the send to slot 3 was acknowledged 10 s before the kill
        sent(0, CLUSTER_PRIORITY, "n.p.1", 5, false, false, T0 + 10 * S, 50);
        sent(1, CLUSTER_PRIORITY, "n.p.2", 3, false, false, T0, 50);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + 11 * S, T0 + 15 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        Verdict result = check();

        assertThat(result.figure("lost_non_durable")).isZero();
        assertThat(result.figure("lost_unexplained")).isEqualTo(2);
        assertThat(result.failures()).anyMatch(f -> f.startsWith("2 message(s) lost without a master SIGKILL"));
    }

    @Test
    void aMessageInTheDeadQueueWithAReasonIsAccountedFor() {
        sent(0, FIXED, "n.f.1", false, T0, T0 / 1000 + 1000);
        dead(FIXED, 0, "n.f.1", 0, "handler_verdict", "poison message", 3);
        sent(1, FIXED, "n.f.2", false, T0, T0 / 1000 + 1000);
        dead(FIXED, 0, "n.f.2", 1, "", "", 3);

        Verdict result = check();

        assertThat(result.figure("dead")).isEqualTo(2);
        assertThat(result.figure("lost")).isZero();
        assertThat(result.failures()).containsExactly("1 dead message(s) without a recorded reason");
    }

    @Test
    void aPriorityMessageWhoseFailedDeliveryMergedIntoANewerSendIsSuperseded() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 0, "n.p.1", 0, 1, T0 + S, T0 + S + 100, "err", T0 / 1000 + 1000, -1, 0);
        sent(1, PRIORITY, "n.p.1", false, T0 + S + 50, 60);
        consumed("c1-1", PRIORITY, "n.p.1", 1, T0 + 2 * S);

        Verdict result = check();

        assertThat(result.figure("lost")).isZero();
        assertThat(result.details().get("superseded")).isEqualTo(1L);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aTimedMessageThatWasNotYetDueWhenItsKeyWasSentAgainCountsAsLost() {
        // the second send did not merge, so the first was no longer waiting; yet it could not have been polled
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        sent(1, MERGE, "n.m.1", false, T0 + S, 3000);
        consumed("c1-1", MERGE, "n.m.1", 1, T0 + 5 * S);

        Verdict result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
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

    @Test
    void aFailedSendThatWasAppliedAnywayDoesNotCount() {
        failedSend(0, MERGE, "n.m.1", T0, 1000);
        consumed("c1-1", MERGE, "n.m.1", 0, T0 + 2 * S);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("sent")).isZero();
        assertThat(result.details().get("consumed_without_receipt")).isEqualTo(1L);
        assertThat(result.details().get("send_failures")).isEqualTo(1L);
    }

    // ---- duplicates ----------------------------------------------------------------------------------------------

    @Test
    void aDuplicateOutsideEveryFaultWindowIsAViolation() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 10 * S);

        Verdict result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("duplicate(s) outside every window"));
    }

    @Test
    void aDuplicateAfterTheConsumerThatRanItWasKilledBeforeItsCommitIsAllowedAndCounted() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 10 * S);
        fault(FaultKind.KILL, "c1-1", T0 + S + 500 * MS, T0 + 4 * S, Set.of());

        Verdict result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("kill", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void anUnexplainedDuplicateFailsTheRunEvenWhileUnrelatedFaultsHappenAtTheSameTime() {
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + S);
        consumed("c2-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + 6 * S);
        // every fault strikes while the first delivery's commit was due, but none strikes that delivery
        fault(FaultKind.KILL, "c2-1", T0 + S + 200 * MS, T0 + 3 * S, Set.of());
        fault(FaultKind.STOP, "c3-1", T0 + S + 300 * MS, T0 + 8 * S, Set.of());
        fault(FaultKind.ZK_EXPIRE, "c3-1", T0 + S + 400 * MS, T0 + S + 400 * MS, Set.of());
        fault(FaultKind.REDIS_RESTART, "standalone redis", T0 + S, T0 + 2 * S, Set.of(PRIORITY + "_0", PRIORITY + "_3"));
        fault(FaultKind.MASTER_KILL, "master :7002", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_5"));
        fault(FaultKind.FAILOVER, "master :7003", T0 + S, T0 + 2 * S, Set.of(CLUSTER_PRIORITY + "_6"));
        fault(FaultKind.ZK_QUORUM, "zookeeper", T0 + S, T0 + 7 * S, Set.of());
        sessionLost("c2-1", T0 + 5 * S);
        // the consumer that ran it reported trouble, but of another slot and of another worker thread
        ackFailed("c1-1", T0 + 2 * S, "p-0", CLUSTER_PRIORITY, 4);
        ackFailed("c1-1", T0 + 2 * S, "pc-1", CLUSTER_PRIORITY, 3);

        Verdict result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("1 duplicate(s) outside every window"));
    }

    @Test
    void aFlushExplainsTheRedeliveryOfWhatItsRestorePutBackButNotOfWhatWasCommittedLongBefore() {
        // in flight when Redis was emptied: the restore put it back
        sent(0, PRIORITY, "n.p.1", 3, false, false, T0, 50);
        consumed("c1-1", PRIORITY, 3, "n.p.1", 0, T0 + 60 * S);
        consumed("c2-1", PRIORITY, 3, "n.p.1", 0, T0 + 64 * S);
        // committed 2 s before the flush, while its journal row could still be on the way
        sent(1, PRIORITY, "n.p.2", 0, false, false, T0, 50);
        consumed("c1-1", PRIORITY, 0, "n.p.2", 1, T0 + 58 * S);
        consumed("c2-1", PRIORITY, 0, "n.p.2", 1, T0 + 63 * S);
        // committed 50 s before: no restore brings it back, so its second delivery is unexplained
        sent(2, PRIORITY, "n.p.3", 0, false, false, T0, 50);
        consumed("c1-1", PRIORITY, 0, "n.p.3", 2, T0 + 10 * S);
        consumed("c2-1", PRIORITY, 0, "n.p.3", 2, T0 + 63 * S);
        fault(FaultKind.REDIS_FLUSH, "standalone redis", T0 + 60 * S + 10 * MS, T0 + 62 * S,
                Set.of(PRIORITY + "_0", PRIORITY + "_3"));

        Verdict result = check();

        assertThat(result.figure("duplicates")).isEqualTo(3);
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("redis-flush", 2L));
    }

    @Test
    void aFlushExplainsTheRedeliveryOfACommitOnlyWhereTheJournalShowsItsRowCameAfterTheRestoreOrDiedWithItsConsumer() {
        long flush = T0 + 60 * S;
        long restoring = T0 + 61 * S;
        long again = T0 + 63 * S;
        // committed 50 s before the flush, by a consumer killed 2 s later: its commit's row died with it
        committedBy(0, "n.p.1", "c1-1", T0 + 10 * S);
        killed("c1-1", T0 + 12 * S);
        journaled("n.p.1", 1, "restored", restoring);
        // committed 30 s before the flush by a consumer that lived on, whose journal wrote the row after the restore
        committedBy(1, "n.p.2", "c3-1", T0 + 30 * S);
        journaled("n.p.2", 2, "restored", restoring);
        journaled("n.p.2", 2, "acked", T0 + 30 * S + 2 * MS);
        // the same, but the row was written before the restore's mark: the restore read it, and put nothing back
        committedBy(2, "n.p.3", "c3-1", T0 + 30 * S);
        journaled("n.p.3", 3, "acked", T0 + 30 * S + 2 * MS);
        journaled("n.p.3", 3, "restored", restoring);
        // restored, but its consumer lived on and never wrote the commit's row: a lost row, not a late one
        committedBy(3, "n.p.4", "c3-1", T0 + 30 * S);
        journaled("n.p.4", 4, "restored", restoring);
        // its consumer killed after the commit, but delivered again before the flush: no restore brought it back
        committedBy(4, "n.p.5", "c4-1", T0 + 10 * S);
        killed("c4-1", T0 + 12 * S);
        journaled("n.p.5", 5, "restored", restoring);
        // read by the restore while open, its row written before the restore came to mark it, so never marked: the
        // restore's mark of a later message (7) was written after that read, and the row after that mark
        committedBy(5, "n.p.6", "c3-1", T0 + 30 * S);
        journaled("n.p.7", 7, "restored", restoring);
        journaled("n.p.6", 6, "acked", T0 + 30 * S + 2 * MS);
        // its row written after the mark of a restore long before this flush: not this restore's doing
        committedBy(6, "n.p.8", "c3-1", T0 + 30 * S);
        journaled("n.p.8", 8, "restored", T0 + 20 * S);
        journaled("n.p.8", 8, "acked", T0 + 30 * S + 2 * MS);
        // killed after the flush, during the restore, its commit's row still unwritten
        committedBy(7, "n.p.9", "c5-1", T0 + 30 * S);
        killed("c5-1", T0 + 60 * S + 500 * MS);
        journaled("n.p.9", 9, "restored", restoring);
        // every message's second delivery, after the flush (n.p.5's before it), and its row
        for (int i = 1; i <= 9; i++) {
            if (i != 5 && i != 7) {
                consumed("c2-1", PRIORITY, 0, "n.p." + i, i - 1 - (i > 7 ? 1 : 0), again);
                journaled("n.p." + i, i, "acked", again + 2 * MS);
            }
        }
        consumed("c2-1", PRIORITY, 0, "n.p.5", 4, T0 + 40 * S);
        journaled("n.p.5", 5, "acked", T0 + 40 * S + 2 * MS);
        fault(FaultKind.REDIS_FLUSH, "standalone redis", flush, T0 + 62 * S, Set.of(PRIORITY + "_0"));

        Verdict result = check();

        assertThat(result.figure("duplicates")).isEqualTo(8);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("redis-flush", 4L));
        assertThat(((List<?>) result.details().get("duplicate_unexplained_examples")).stream()
                .map(e -> e.toString().substring(0, e.toString().indexOf(':')))).containsExactlyInAnyOrder(
                PRIORITY + " n.p.3", PRIORITY + " n.p.4", PRIORITY + " n.p.5", PRIORITY + " n.p.8");
    }

    @Test
    void aFlushExcusesADeadMessageItEmptiedAndAMessageALaterSendOfItsKeyReplacedButNothingElse() {
        long due = T0 / 1000 + 1000;
        // failed for good before the flush: the flush emptied the dead queue it was in
        sent(0, PRIORITY, "n.p.dead", 3, false, false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 3, "n.p.dead", 0, 1, T0 + S, T0 + S + 10, "poison", T0 / 1000 + 1000, -1, 0);
        // waiting at the flush; a new send of its key after it was delivered instead
        sent(1, FIXED, "n.f.k", false, T0, due + 60_000);
        sent(2, FIXED, "n.f.k", false, T0 + 6 * S, due);
        ran("c1-1", "f-0", FIXED, 0, "n.f.k", 2, 1, T0 + 7 * S, T0 + 7 * S + 10, "ok", due + 6000, due, due);
        // waiting at the flush; the send of its key that replaced it after the flush failed for good, as the merged
        // message would have
        sent(6, FIXED, "n.f.poison", false, T0, due + 60_000);
        sent(7, FIXED, "n.f.poison", false, T0 + 6 * S, due);
        ran("c1-1", "f-0", FIXED, 0, "n.f.poison", 7, 1, T0 + 7 * S, T0 + 7 * S + 10, "poison", due + 6000, due, due);
        dead(FIXED, 0, "n.f.poison", 7, "handler_verdict", "poison message", 1);
        // waiting at the flush and never replaced: lost, whatever the flush
        sent(3, PRIORITY, "n.p.gone", 1, false, false, T0, 50);
        // never delivered, its time to live up before the flush: it expired into the dead queue the flush emptied
        sent(4, TTL, "n.t.expired", 2, false, false, T0 - 4 * S, 50);
        // never delivered, but its time to live not up at the flush: lost
        sent(5, TTL, "n.t.late", 2, false, false, T0, 50);
        fault(FaultKind.REDIS_FLUSH, "standalone redis", T0 + 5 * S, T0 + 5 * S + 500 * MS,
                Set.of(PRIORITY + "_1", PRIORITY + "_3", FIXED + "_0", TTL + "_2"));

        Verdict result = check();

        assertThat(result.figure("lost_in_flush")).isEqualTo(4);
        assertThat(result.figure("lost_unexplained")).isEqualTo(2);
    }

    @Test
    void aFlushExcusesAMessageReplacedThroughNewerSendsNoHandlerSawWhenTheLastDiedBeforeIt() {
        long flush = T0 + 20 * S;
        // taken by a poll whose reply never came (no delivery); a newer send waited behind its lease and took its
        // place, was itself replaced by a newer one before any handler saw it, and that one failed for good before
        // the flush emptied the dead queue
        sent(0, PRIORITY, "n.p.chain", 1, false, false, T0, 50);
        sent(1, PRIORITY, "n.p.chain", 1, false, false, T0 + S, 50);
        sent(2, PRIORITY, "n.p.chain", 1, false, false, T0 + 4 * S, 50);
        ran("c1-1", "p-0", PRIORITY, 1, "n.p.chain", 2, 1, T0 + 5 * S, T0 + 5 * S + 10, "poison",
                (T0 + 5 * S) / 1000, -1, 0);
        // the same, but the last one failed after the flush: the flush explains none of the three
        sent(3, PRIORITY, "n.p.late", 1, false, false, T0, 50);
        sent(4, PRIORITY, "n.p.late", 1, false, false, T0 + S, 50);
        sent(5, PRIORITY, "n.p.late", 1, false, false, T0 + 4 * S, 50);
        ran("c1-1", "p-0", PRIORITY, 1, "n.p.late", 5, 1, flush + 5 * S, flush + 5 * S + 10, "poison",
                (flush + 5 * S) / 1000, -1, 0);
        fault(FaultKind.REDIS_FLUSH, "standalone redis", flush, flush + 500 * MS, Set.of(PRIORITY + "_1"));

        Verdict result = check();

        assertThat(result.figure("lost_in_flush")).isEqualTo(3);
        assertThat(result.figure("lost_unexplained")).isEqualTo(3);
        assertThat(result.details().get("lost_unexplained_examples").toString()).contains("n.p.late")
                .doesNotContain("n.p.chain");
    }

    @Test
    void aMessageAFlushLostIsExcusedWhenTheSendThatTookItsPlaceDiedBeforeALaterFlush() {
        long first = T0 + 10 * S;
        long second = T0 + 30 * S;
        // due long after the send that replaced it: it cannot have been in flight then, and merged into it
        long lateDue = (first + 20 * S) / 1000;
        long due = (first + 3 * S) / 1000;
        // waiting at the first flush; a send after it created its key anew, failed for good, and the second flush
        // emptied the dead queue it was in
        sent(0, FIXED, "n.f.twice", 1, false, false, T0, lateDue);
        sent(1, FIXED, "n.f.twice", 1, false, false, first + 2 * S, due);
        ran("c1-1", "f-0", FIXED, 1, "n.f.twice", 1, 1, first + 4 * S, first + 4 * S + 10, "poison",
                (first + 4 * S) / 1000, due, due);
        // the same, but the send after the first flush was never delivered: nothing explains either
        sent(2, FIXED, "n.f.never", 1, false, false, T0, lateDue);
        sent(3, FIXED, "n.f.never", 1, false, false, first + 2 * S, due);
        // the first flush's restore ends 5 s after it: both sends after the flush came while it ran
        fault(FaultKind.REDIS_FLUSH, "standalone redis", first, first + 5 * S, Set.of(FIXED + "_1"));
        fault(FaultKind.REDIS_FLUSH, "standalone redis", second, second + 500 * MS, Set.of(FIXED + "_1"));

        Verdict result = check();

        assertThat(result.figure("lost_in_flush")).isEqualTo(2);
        assertThat(result.figure("lost_unexplained")).isEqualTo(2);
        assertThat(result.details().get("lost_unexplained_examples").toString()).contains("n.f.never")
                .doesNotContain("n.f.twice");
    }

    @Test
    void aKillOfTheSameConsumerLongAfterTheCommitWasDueExplainsNothing() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        fault(FaultKind.KILL, "c1-1", T0 + 20 * S, T0 + 22 * S, Set.of());
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 30 * S);

        Verdict result = check();

        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aPauseThatLandsJustAfterTheHandlerStartedExplainsItsDuplicate() {
        // the harness records the SIGSTOP, then sends it: the handler started 2 ms after the recorded time
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 0, "n.p.1", 0, 1, T0 + S + 2 * MS, T0 + 6 * S + MS, "ok", T0 / 1000 + 1002, -1, 0);
        paused("c1-1", T0 + S, T0 + 6 * S);
        fault(FaultKind.STOP, "c1-1", T0 + S, T0 + 6 * S, Set.of());
        ran("c2-1", "p-0", PRIORITY, 0, "n.p.1", 0, 2, T0 + 5 * S, T0 + 5 * S + MS, "ok", T0 / 1000 + 5000, -1, 0);

        assertTheOnlyDuplicateIsExplainedBy("stop");
    }

    @Test
    void aConsumerFrozenBetweenItsPollAndTheHandlerIsStruckInThatDelivery() {
        frozenBetweenPollAndHandler(T0 + 9 * S);

        assertTheOnlyDuplicateIsExplainedBy("stop");
    }

    @Test
    void theLateHandlerOfAConsumerFrozenAfterItsPollExplainsItsOwnRunWhenItComesSecond() {
        // the new owner redelivers once the lease is over; the frozen consumer runs its stale delivery on waking
        frozenBetweenPollAndHandler(T0 + 6 * S);

        assertTheOnlyDuplicateIsExplainedBy("stop-late-handler");
    }

    private void assertTheOnlyDuplicateIsExplainedBy(String cause) {
        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of(cause, 1L));
        assertThat(result.failures()).isEmpty();
    }

    /**
     * c1-1 polled n.p.1 at +1 s (its lease ran until +4 s), was frozen before the handler from +1.1 s to +8 s, and
     * ran it once awake, at +8.5 s; c2-1 delivered it again at {@code redelivery}.
     */
    private void frozenBetweenPollAndHandler(long redelivery) {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        paused("c1-1", T0 + S + 100 * MS, T0 + 8 * S);
        fault(FaultKind.STOP, "c1-1", T0 + S + 100 * MS, T0 + 8 * S, Set.of());
        ran("c1-1", "p-0", PRIORITY, 0, "n.p.1", 0, 1, T0 + 8 * S + 500 * MS, T0 + 8 * S + 501 * MS, "ok",
                T0 / 1000 + 8500, -1, 0, T0 / 1000 + 4000);
        ran("c2-1", "p-0", PRIORITY, 0, "n.p.1", 0, 2, redelivery, redelivery + MS, "ok", redelivery / 1000, -1, 0);
    }

    @Test
    void aPauseOverBeforeTheHandlerStartedExplainsNothing() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        paused("c1-1", T0 + S, T0 + 2 * S);
        fault(FaultKind.STOP, "c1-1", T0 + S, T0 + 2 * S, Set.of());
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + 3 * S);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 10 * S);

        Verdict result = check();

        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aRedisRestartExplainsADuplicateOnlyWhenTheCommitWasDueDuringItsOutageOnThatNode() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        // n.p.1: handled just before the restart, its commit due while Redis was down
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + 9 * S);
        // n.p.2: handled and due to be committed long before
        consumed("c1-1", PRIORITY, "n.p.2", 1, T0 + S);
        fault(FaultKind.REDIS_RESTART, "standalone redis", T0 + 10 * S, T0 + 11 * S, Set.of(PRIORITY + "_0"));
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 15 * S);
        consumed("c2-1", PRIORITY, "n.p.2", 1, T0 + 15 * S);

        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("redis-restart", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aMasterKillExplainsADuplicateWhoseCommitMayNotHaveReachedTheReplica() {
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + S);
        // the lease ran to T0 + 4 s, so the commit went out by T0 + 5 s; the master died 1.5 s later
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + 6500 * MS, T0 + 12 * S, Set.of(CLUSTER_PRIORITY + "_3"));
        consumed("c2-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + 15 * S);

        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("master-kill", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aQuorumLossExplainsADuplicateOnlyForTheConsumerThatLostItsSessionAndHadItsCommitFenced() {
        sent(0, PRIORITY, "n.p.1", 0, false, false, T0, 50);
        sent(1, PRIORITY, "n.p.2", 1, false, false, T0, 50);
        consumed("c1-1", PRIORITY, 0, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, 1, "n.p.2", 1, T0 + S);
        fault(FaultKind.ZK_QUORUM, "zookeeper", T0 + S, T0 + 7 * S, Set.of());
        sessionLost("c1-1", T0 + 5 * S);
        fencedAtAck("c1-1", T0 + 8 * S, "p-0", PRIORITY, 0);
        // c2-1 kept its session: its commit cannot have been fenced by the quorum loss
        fencedAtAck("c2-1", T0 + 8 * S, "p-0", PRIORITY, 1);
        consumed("c3-1", PRIORITY, 0, "n.p.1", 0, T0 + 10 * S);
        consumed("c3-1", PRIORITY, 1, "n.p.2", 1, T0 + 10 * S);

        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("zk-quorum", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aLateAckReportExplainsADuplicateOfThatKeyOnly() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c1-1", PRIORITY, "n.p.2", 1, T0 + S + 10 * MS);
        stale("c1-1", T0 + 5 * S, "p-0", PRIORITY, 0, "n.p.1");
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 8 * S);
        consumed("c2-1", PRIORITY, "n.p.2", 1, T0 + 8 * S);

        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("lease-expired", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aFailedAckOfTheSlotByTheWorkerThatRanTheMessageExplainsItsDuplicate() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        ackFailed("c1-1", T0 + 4 * S, "p-0", PRIORITY, 0);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 8 * S);

        Verdict result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("ack-failed", 1L));
        assertThat(result.failures()).isEmpty();
    }

    // ---- exclusivity -------------------------------------------------------------------------------------------

    @Test
    void twoWorkersInOneSlotAtOnceIsAnOverlapViolation() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 3 * S, "ok", T0 / 1000 + 1000, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", T0 / 1000 + 2000, -1, 0);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("two workers ran one slot at once"));
    }

    @Test
    void aHandlerFrozenBySigstopPastItsLeaseIsCountedAndPassesWhenItsMessageIsRedelivered() {
        pausedHandlerThenNewOwnerAt7s(4000);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 7 * S + 20, T0 + 7 * S + 30, "ok", T0 / 1000 + 7000, -1, 0);
        fault(FaultKind.STOP, "c1-1", T0 + 2 * S, T0 + 8 * S, Set.of());

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isZero();
        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(2);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(2);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("stop", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aPausedHandlerOverlapWhoseMessageWasNotRedeliveredFailsTheRun() {
        pausedHandlerThenNewOwnerAt7s(4000);

        Verdict result = check();

        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isZero();
        assertThat(result.failures()).anyMatch(f -> f.contains("was not redelivered"));
    }

    @Test
    void aPausedHandlerOverlapWhoseMessageExpiredBeforeItsRetryIsResolved() {
        pausedHandlerThenNewOwnerAt7s(4000);
        // the recovered message's time to live ran out before its retry: its late commit was not taken either
        dead(PRIORITY, 3, "n.p.1", 0, "expired", "its time to live ran out before it was delivered", 1);

        Verdict result = check();

        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(1);
        assertThat(result.failures()).noneMatch(f -> f.contains("was not redelivered"));
    }

    @Test
    void aNewOwnerThatStartsBeforeAPausedHandlersLeaseRanOutIsAViolation() {
        // leased until T0 + 9 s: the new owner should have waited for it
        pausedHandlerThenNewOwnerAt7s(9000);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps")).isZero();
    }

    @Test
    void theNextMessageOfABatchCallFrozenPastItsLeaseMayStartBesideTheNewOwner() {
        batchCallFrozenThenNewOwner(T0 + S);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isZero();
        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(2);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(2);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aNewOwnersRunThatBeginsWhileALateMessageOfAFrozenBatchCallRunsIsAllowedToo() {
        frozenBatchCallOfThree();
        // begun well after the recorded resume, and still running when the new owner starts
        lateSecondOfTheFrozenCall();
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.3", 2, 1, T0 + 9 * S, T0 + 9 * S + 10, "ok", T0 / 1000 + 9000, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 10 * S, T0 + 10 * S + 10, "ok", T0 / 1000 + 10000, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.2", 1, 2, T0 + 10 * S + 20, T0 + 10 * S + 30, "ok", T0 / 1000 + 10000,
                -1, 0);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isZero();
        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(1);
    }

    @Test
    void aLateMessageOfAFrozenBatchCallThatTheNewOwnerRedeliveredBeforeItBeganIsResolved() {
        frozenBatchCallOfThree();
        // the new owner redelivers n.p.2 before the frozen call, awake again, begins it
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.2", 1, 2, T0 + 7950_000, T0 + 7950_010, "ok", T0 / 1000 + 7950, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.3", 2, 1, T0 + 8100_000, T0 + 9 * S, "ok", T0 / 1000 + 8100, -1, 0);
        lateSecondOfTheFrozenCall();
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 10 * S, T0 + 10 * S + 10, "ok", T0 / 1000 + 10000, -1, 0);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isZero();
        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(2);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(2);
        assertThat(result.failures()).isEmpty();
    }

    /**
     * c1-1's batch call runs n.p.1 from +1 s to +8.1 s, the call's three messages leased until +4 s, and is frozen
     * from +2 s to +8 s.
     */
    private void frozenBatchCallOfThree() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        sent(2, PRIORITY, "n.p.3", false, T0, 50);
        ranInCall("c1-1", "p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 8 * S + 100_000, "ok", T0 / 1000 + 1000, -1,
                0, T0 / 1000 + 4000, T0 + S);
        paused("c1-1", T0 + 2 * S, T0 + 8 * S);
        fault(FaultKind.STOP, "c1-1", T0 + 2 * S, T0 + 8 * S, Set.of());
    }

    /** The frozen call goes on with n.p.2, after its lease, from +8.2 s to +9.5 s. */
    private void lateSecondOfTheFrozenCall() {
        ranInCall("c1-1", "p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 8 * S + 200_000, T0 + 9 * S + 500_000, "ok",
                T0 / 1000 + 8200, -1, 0, T0 / 1000 + 4000, T0 + S);
    }

    @Test
    void aRunBesideTheNewOwnerIsAViolationWhenItsOwnCallWasNotFrozen() {
        // n.p.2 had a handler call of its own, begun after the pause: nothing excuses it
        batchCallFrozenThenNewOwner(T0 + 8 * S - 5_000);

        Verdict result = check();

        assertThat(result.figure("overlap_violations")).isEqualTo(1);
    }

    /**
     * c1-1's batch call runs n.p.1 from +1 s, both messages leased until +4 s, and is frozen from +2 s to +8 s;
     * as it runs again it goes on with n.p.2 (its run's call began at {@code callOfSecond}) beside c2-1, which
     * took the slot over and runs n.p.3 from +7.9 s, then n.p.1 and n.p.2 again.
     */
    private void batchCallFrozenThenNewOwner(long callOfSecond) {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        sent(2, PRIORITY, "n.p.3", false, T0, 50);
        long lease = T0 / 1000 + 4000;
        ranInCall("c1-1", "p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 8 * S - 10_000, "ok", T0 / 1000 + 1000, -1,
                0, lease, T0 + S);
        // the harness records the resume after the process already runs again
        ranInCall("c1-1", "p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 8 * S - 5_000, T0 + 8 * S + 5_000, "ok",
                T0 / 1000 + 8000, -1, 0, lease, callOfSecond);
        paused("c1-1", T0 + 2 * S, T0 + 8 * S);
        fault(FaultKind.STOP, "c1-1", T0 + 2 * S, T0 + 8 * S, Set.of());
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.3", 2, 1, T0 + 7900_000, T0 + 8500_000, "ok", T0 / 1000 + 7900, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 9 * S, T0 + 9 * S + 10, "ok", T0 / 1000 + 9000, -1, 0);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.2", 1, 2, T0 + 9 * S + 20, T0 + 9 * S + 30, "ok", T0 / 1000 + 9000, -1,
                0);
    }

    /**
     * c1-1 starts n.p.1 at +1 s, leased until +{@code leaseMs}, and is frozen from +2 s to +8 s; c2-1 runs n.p.2
     * in the same slot at +7 s.
     */
    private void pausedHandlerThenNewOwnerAt7s(long leaseMs) {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 9 * S, "ok", T0 / 1000 + 1000, -1, 0,
                T0 / 1000 + leaseMs);
        paused("c1-1", T0 + 2 * S, T0 + 8 * S);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 7 * S, T0 + 7 * S + 10, "ok", T0 / 1000 + 7000, -1, 0);
    }

    @Test
    void anAtMostOnceHandlerFrozenPastItsBatchLeaseMayBeOverlappedWithoutARedelivery() {
        sent(0, AT_MOST_ONCE, "n.a.1", false, T0, 50);
        sent(1, AT_MOST_ONCE, "n.a.2", false, T0, 50);
        ran("c1-1", "a-0", AT_MOST_ONCE, 0, "n.a.1", 0, 1, T0 + S, T0 + 9 * S, "ok", T0 / 1000 + 1000, -1, 0,
                T0 / 1000 + 4000);
        paused("c1-1", T0 + 2 * S, T0 + 8 * S);
        ran("c2-1", "a-0", AT_MOST_ONCE, 0, "n.a.2", 1, 1, T0 + 7 * S, T0 + 7 * S + 10, "ok", T0 / 1000 + 7000, -1, 0);
        // before the batch's lease ran out the new owner should still have waited
        sent(2, AT_MOST_ONCE, "n.a.3", false, T0, 50);
        sent(3, AT_MOST_ONCE, "n.a.4", false, T0, 50);
        ran("c1-1", "a-0", AT_MOST_ONCE, 1, "n.a.3", 2, 1, T0 + S, T0 + 9 * S, "ok", T0 / 1000 + 1000, -1, 0,
                T0 / 1000 + 8000);
        ran("c2-1", "a-0", AT_MOST_ONCE, 1, "n.a.4", 3, 1, T0 + 7 * S, T0 + 7 * S + 10, "ok", T0 / 1000 + 7000, -1, 0);

        Verdict result = check();

        assertThat(result.figure("paused_handler_overlaps_at_most_once")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps")).isZero();
        assertThat(result.figure("overlap_violations")).isEqualTo(1);
        assertThat(result.failures()).containsExactly("1 time(s) two workers ran one slot at once");
    }

    @Test
    void aHandlerKilledMidMessageEndsWithItsProcess() {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        ran("c1-1", "p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, -1, "none", T0 / 1000 + 1000, -1, 0);
        killed("c1-1", T0 + 2 * S);
        ran("c2-1", "p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 6 * S, T0 + 6 * S + 10, "ok", T0 / 1000 + 6000, -1, 0);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("kills_mid_message")).isEqualTo(1);
    }

    // ---- due times ---------------------------------------------------------------------------------------------

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
}
