package dev.rmq.faults;

import dev.rmq.faults.check.Verdict;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No two workers run a slot's messages at once, except where a frozen handler outlived its lease: the checker on
 * hand-written runs.
 */
class ExclusivityCheckTests extends HandWrittenRun {

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
}
