package dev.rmq.faults.check;

import dev.rmq.dead.DeadReason;
import dev.rmq.faults.check.RunLog.Run;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One worker per slot at any instant. Each handler run is an interval of one slot, from its start to its end (or
 * to the death of its process). Two intervals of one slot by different workers that intersect are an overlap.
 * Since a slot taken over without a release is polled only after the old owner's latest lease, the one overlap
 * the design allows is a handler that outlived its own lease: the earlier run was frozen by SIGSTOP while it ran,
 * and the later one started after the earlier one's lease deadline. A batch listener's call frozen so goes on with
 * its next messages when the process runs again, each after its own lease deadline, beside the new owner's runs:
 * the same overlap, seen from the frozen side. It is counted as a paused-handler overlap and
 * must end in a redelivery of its message (fencing refused its late commit), or in the dead queue after the lease
 * expiry used up its retries, or, on a topic with a time to live, in the dead queue as expired (the recovered
 * message ran out of time before its retry). On an at-most-once topic the frozen handler's message had left Redis
 * when it was taken, so it is never redelivered: the overlap is allowed once the batch's lease is over (the new
 * owner waited that long) and counted apart. Every other overlap is a violation.
 */
final class OverlapCheck {

    private OverlapCheck() {
    }

    static void run(RunLog log, Verdict verdict) {
        long violations = 0;
        long paused = 0;
        long pausedRedelivered = 0;
        long pausedAtMostOnce = 0;
        long pausedFlushed = 0;
        List<String> violationExamples = new ArrayList<>();
        List<String> pausedExamples = new ArrayList<>();
        // apart, so that the overlaps the design allows cannot crowd out the one that fails the run
        List<String> lateCommitExamples = new ArrayList<>();
        Map<String, List<Run>> bySlot = new TreeMap<>();
        for (Run run : log.runs) {
            bySlot.computeIfAbsent(run.slotName(), k -> new ArrayList<>()).add(run);
        }
        for (List<Run> slotRuns : bySlot.values()) {
            List<Run> active = new ArrayList<>();
            for (Run run : slotRuns) {
                active.removeIf(a -> a.end() <= run.start());
                Run violating = null;
                Run frozen = null;
                boolean runLate = lateInFrozenCall(log, run);
                for (Run other : active) {
                    if (other.who().equals(run.who())) {
                        continue;
                    }
                    if (runLate) {
                        frozen = frozen == null ? run : frozen;
                    } else if (lateInFrozenCall(log, other)) {
                        frozen = frozen == null ? other : frozen;
                    } else if (log.wasPausedDuring(other)
                            && run.start() >= other.leaseMs() * 1000 - EarlyCheck.EARLY_TOLERANCE_MS * 1000) {
                        frozen = frozen == null ? other : frozen;
                    } else {
                        violating = violating == null ? other : violating;
                    }
                }
                if (violating != null) {
                    violations++;
                    Verdict.example(violationExamples, run.slotName() + ": " + DuplicateCheck.brief(violating)
                            + " still ran when " + DuplicateCheck.brief(run) + " started");
                } else if (frozen != null) {
                    if (log.atMostOnceTopics.contains(frozen.topic())) {
                        pausedAtMostOnce++;
                        active.add(run);
                        continue;
                    }
                    paused++;
                    boolean redelivered = redeliveredAfter(log, frozen);
                    Integer flush = redelivered ? null : flushAfterLease(log, frozen);
                    if (redelivered) {
                        pausedRedelivered++;
                    } else if (flush != null) {
                        pausedFlushed++;
                    }
                    String how = frozen == run
                            ? " began after its lease (" + run.leaseMs() + " ms) in a batch call that SIGSTOP froze,"
                                    + " while another worker held the slot; "
                            : " was frozen by SIGSTOP mid-handler, outlived its lease (" + frozen.leaseMs()
                                    + " ms) and finished after " + DuplicateCheck.brief(run) + " started; ";
                    String example = run.slotName() + ": " + DuplicateCheck.brief(frozen) + how
                            + (redelivered ? "its message was redelivered" : flush != null ? "redis-flush " + flush
                                    + " emptied Redis after its lease ran out, before a redelivery or a death"
                                    + " could show" : "its message was NOT redelivered");
                    Verdict.example(redelivered || flush != null ? pausedExamples : lateCommitExamples, example);
                }
                active.add(run);
            }
        }
        verdict.figures().put("overlap_violations", violations);
        verdict.figures().put("paused_handler_overlaps", paused);
        verdict.figures().put("paused_handler_overlaps_redelivered", pausedRedelivered);
        verdict.figures().put("paused_handler_overlaps_at_most_once", pausedAtMostOnce);
        verdict.figures().put("paused_handler_overlaps_flushed", pausedFlushed);
        verdict.details().put("overlap_violation_examples", violationExamples);
        verdict.details().put("paused_handler_overlap_examples", pausedExamples);
        verdict.details().put("paused_handler_late_commit_examples", lateCommitExamples);
        verdict.failIf(violations > 0, violations + " time(s) two workers ran one slot at once");
        verdict.failIf(paused > pausedRedelivered + pausedFlushed, (paused - pausedRedelivered - pausedFlushed)
                + " paused handler(s) overlapped by a"
                + " new owner whose message was not redelivered: a late commit was accepted");
    }

    /**
     * The redis-flush of the run's slot that came after its lease ran out, or null. The lease's expiry made the
     * message a retry (or dead), but the flush emptied Redis before the retry or the dead queue could show it: the
     * restore puts back only what the journal holds open, and a later flush empties the dead queue. Counted apart.
     */
    private static @Nullable Integer flushAfterLease(RunLog log, Run run) {
        for (RunLog.Fault fault : log.faults) {
            if (fault.kind().equals(DuplicateCheck.REDIS_FLUSH) && fault.slots().contains(run.slotName())
                    && fault.injectMicros() >= run.leaseMs() * 1000) {
                return fault.id();
            }
        }
        return null;
    }

    /**
     * Whether {@code run} is a later message of a batch call that SIGSTOP froze, begun after its own lease: the
     * slot's new owner may run beside it, whichever of the two began first.
     */
    private static boolean lateInFrozenCall(RunLog log, Run run) {
        return log.callWasPausedBefore(run)
                && run.start() >= run.leaseMs() * 1000 - EarlyCheck.EARLY_TOLERANCE_MS * 1000;
    }

    /**
     * Whether the message of {@code run} was delivered again after its lease ran out, as a refused commit makes it,
     * or went dead because that lease expiry used up its retries or because its time to live ran out before the
     * retry: either way its late commit was not taken. A handler that began after its lease, in a frozen call, may
     * begin after the redelivery too.
     */
    private static boolean redeliveredAfter(RunLog log, Run run) {
        long leaseOver = Math.min(run.start(), run.leaseMs() * 1000);
        boolean again = log.runs.stream().anyMatch(r -> r != run && r.key().equals(run.key())
                && r.topic().equals(run.topic()) && r.start() > leaseOver);
        return again || log.dead.stream().anyMatch(d -> d.key().equals(run.key()) && d.topic().equals(run.topic())
                && (d.reason() == DeadReason.LEASE_EXPIRED || d.reason() == DeadReason.EXPIRED));
    }
}
