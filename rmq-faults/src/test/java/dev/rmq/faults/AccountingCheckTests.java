package dev.rmq.faults;

import dev.rmq.faults.check.Verdict;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every message sent is consumed, dead or excused: the checker on hand-written runs that lose messages, some of
 * them in ways the documented semantics allow (at most once, a master killed before replication, a flush).
 */
class AccountingCheckTests extends HandWrittenRun {

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
    void aFailedSendThatWasAppliedAnywayDoesNotCount() {
        failedSend(0, MERGE, "n.m.1", T0, 1000);
        consumed("c1-1", MERGE, "n.m.1", 0, T0 + 2 * S);

        Verdict result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("sent")).isZero();
        assertThat(result.details().get("consumed_without_receipt")).isEqualTo(1L);
        assertThat(result.details().get("send_failures")).isEqualTo(1L);
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
}
