package dev.rmq.faults;

import dev.rmq.faults.check.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message delivered twice must be explained by a fault that could cause it, and an at-most-once message is never
 * delivered twice: the checker on hand-written runs, each allowance shown to hold only for what it names.
 */
class DuplicateCheckTests extends HandWrittenRun {

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
        fault(FaultKind.REDIS_RESTART, "standalone redis", T0 + S, T0 + 2 * S,
                Set.of(PRIORITY + "_0", PRIORITY + "_3"));
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

    /** Send {@code seq} of a {@link #PRIORITY} key, on slot 0, delivered once by {@code inc} at {@code at}. */
    private void committedBy(long seq, String key, String inc, long at) {
        sent(seq, PRIORITY, key, 0, false, false, T0, 50);
        consumed(inc, PRIORITY, 0, key, seq, at);
    }
}
