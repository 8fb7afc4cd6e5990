package dev.rmq.faults.check;

import dev.rmq.dead.DeadReason;
import dev.rmq.faults.check.Messages.Instance;
import dev.rmq.faults.check.RunLog.Fault;
import dev.rmq.faults.check.RunLog.Send;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Nothing accountable is lost. A message of an at-most-once topic may be lost (a failed handler, a consumer that
 * died holding it): those count as {@code lost_at_most_once} and are allowed. A message whose time to live ran out
 * is dead with the reason "expired" ({@code expired}). Otherwise a loss is excused only for a non-durable message
 * whose slot lived on a Cluster
 * master that was SIGKILLed, and whose creating send was acknowledged at most {@link #REPLICATION_LAG} before the
 * kill (for a Sentinel failover: from then until the old master was back as a replica): Redis replicates asynchronously, and a write the master acknowledged but had not yet streamed to its
 * replica dies with it. Those count as {@code lost_non_durable}; every other loss, and any loss of a durable send
 * (which waited for a replica), fails the run.
 */
final class LossCheck {

    /**
     * How long before a master SIGKILL an acknowledged write may still be missing from its replica. Redis streams
     * every write to its replicas in the event-loop iteration that applied it, so on loopback the gap is
     * milliseconds; 2 s leaves room for a master or replica descheduled on a busy two-core machine.
     */
    static final long REPLICATION_LAG = 2_000_000;
    /** The SIGKILL of a master lands within this long after the recorded injection. */
    static final long KILL_LANDS = 200_000;

    private LossCheck() {
    }

    static void run(RunLog log, Messages messages, Verdict verdict) {
        long count = 0;
        long consumed = 0;
        long dead = 0;
        long deadAndConsumed = 0;
        long superseded = 0;
        long lostDurable = 0;
        long lostExcused = 0;
        long lostInFlush = 0;
        long lostUnexplained = 0;
        long lostAtMostOnce = 0;
        long unreceiptedConsumed = 0;
        long durableMessages = 0;
        Map<String, Long> byDeployment = new TreeMap<>();
        Map<String, Long> supersededByType = new TreeMap<>();
        List<String> lostExamples = new ArrayList<>();
        List<String> unexplainedExamples = new ArrayList<>();
        Map<Instance, Optional<String>> flushExcuses = new HashMap<>();
        for (Instance instance : messages.all()) {
            if (instance.status == Messages.Status.UNRECEIPTED) {
                if (instance.consumed()) {
                    unreceiptedConsumed++;
                }
                continue;
            }
            count++;
            byDeployment.merge(log.topicDeployments.getOrDefault(instance.topic, "?"), 1L, Long::sum);
            if (instance.durable()) {
                durableMessages++;
            }
            if (instance.consumed()) {
                consumed++;
            }
            if (instance.dead != null) {
                dead++;
                if (instance.consumed()) {
                    deadAndConsumed++;
                }
            }
            if (instance.status == Messages.Status.SUPERSEDED) {
                superseded++;
                supersededByType.merge(instance.type, 1L, Long::sum);
            } else if (instance.status == Messages.Status.LOST && log.atMostOnceTopics.contains(instance.topic)) {
                lostAtMostOnce++;
            } else if (instance.status == Messages.Status.LOST) {
                String excuse = null;
                if ((excuse = lostInFlush(log, messages, instance, flushExcuses)) != null) {
                    lostInFlush++;
                } else if (instance.durable()) {
                    lostDurable++;
                    Verdict.example(unexplainedExamples, "durable: " + instance.describe());
                } else if ((excuse = lostWithUnreplicatedWrite(log, instance)) != null) {
                    lostExcused++;
                } else {
                    lostUnexplained++;
                    Verdict.example(unexplainedExamples, instance.describe());
                }
                Verdict.example(lostExamples, instance.describe() + (excuse == null ? "" : "; " + excuse));
            }
        }
        verdict.figures().put("sent", messages.sent);
        verdict.figures().put("merged", messages.merged);
        verdict.figures().put("consumed_unique", consumed);
        verdict.figures().put("dead", dead);
        verdict.figures().put("lost", lostDurable + lostExcused + lostUnexplained);
        verdict.figures().put("lost_durable", lostDurable);
        verdict.figures().put("lost_non_durable", lostExcused);
        verdict.figures().put("lost_unexplained", lostUnexplained);
        verdict.figures().put("lost_in_flush", lostInFlush);
        verdict.figures().put("lost_at_most_once", lostAtMostOnce);
        verdict.figures().put("expired", log.dead.stream().filter(d -> !d.probe() && d.reason() == DeadReason.EXPIRED)
                .count());
        verdict.details().put("messages", count);
        verdict.details().put("messages_by_deployment", byDeployment);
        verdict.details().put("messages_durable", durableMessages);
        verdict.details().put("send_failures", messages.sendFailures);
        verdict.details().put("superseded", superseded);
        verdict.details().put("superseded_by_type", supersededByType);
        verdict.details().put("dead_and_consumed", deadAndConsumed);
        verdict.details().put("dead_not_attributed", messages.unattributedDead);
        verdict.details().put("consumed_without_receipt", unreceiptedConsumed);
        verdict.details().put("failed_sends_behind_a_delivery", messages.splitsBehindDelivery);
        verdict.details().put("deliveries_not_attributed", messages.unattributedRuns);
        verdict.details().put("lost_examples", lostExamples);
        // apart, so that losses the faults explain cannot crowd out of the examples the ones that fail the run:
        // durable losses, and the others no fault explains
        verdict.details().put("lost_unexplained_examples", unexplainedExamples);
        long deadWithoutReason = 0;
        List<String> deadWithoutReasonExamples = new ArrayList<>();
        for (RunLog.Dead entry : log.dead) {
            if (entry.reason() == DeadReason.UNKNOWN) {
                deadWithoutReason++;
                Verdict.example(deadWithoutReasonExamples, entry.topic() + "_" + entry.slot() + " " + entry.key());
            }
        }
        verdict.details().put("dead_without_reason", deadWithoutReason);
        verdict.details().put("dead_without_reason_examples", deadWithoutReasonExamples);
        verdict.failIf(lostDurable > 0, lostDurable + " durable message(s) lost");
        verdict.failIf(lostUnexplained > 0, lostUnexplained
                + " message(s) lost without a master SIGKILL right after their send to explain it");
        verdict.failIf(deadWithoutReason > 0, deadWithoutReason + " dead message(s) without a recorded reason");
    }

    /**
     * The redis-flush that explains why a message is missing at the end, or null. Two things a flush does that a
     * restore does not undo, by design: it empties the dead queue (the journal keeps a dead message's row, with its
     * payload, but puts back only unfinished ones), and a send of a key after the flush creates a new message where
     * it would have merged into the lost one, which the restore then finds present and leaves (the later send's
     * content is the one delivered, as a merge would have had it). Counted apart, not as losses. A message that went
     * dead is seen in the dead queue at the end of the run, so one that died before a flush is seen nowhere: one that
     * a handler failed, and one whose time to live ran out, undelivered, before the flush.
     *
     * @param excuses each instance's excuse once found (empty: none), as the excuse of one may rest on a later one's
     */
    private static @Nullable String lostInFlush(RunLog log, Messages messages, Instance instance,
                                                Map<Instance, Optional<String>> excuses) {
        Optional<String> known = excuses.get(instance);
        if (known != null) {
            return known.orElse(null);
        }
        String excuse = findExcuse(log, messages, instance, excuses);
        excuses.put(instance, Optional.ofNullable(excuse));
        return excuse;
    }

    private static @Nullable String findExcuse(RunLog log, Messages messages, Instance instance,
                                               Map<Instance, Optional<String>> excuses) {
        String slot = instance.topic + "_" + instance.slot();
        long firstSend = instance.sends.get(0).startMicros();
        long lastSend = instance.sends.stream().mapToLong(RunLog.Send::startMicros).max().orElse(Long.MAX_VALUE);
        long lastRun = instance.runs.stream().mapToLong(RunLog.Run::end).max().orElse(Long.MAX_VALUE);
        boolean died = !instance.runs.isEmpty() && !instance.consumed();
        long ttl = log.topicTtlMicros.getOrDefault(instance.topic, 0L);
        long lastReply = instance.sends.stream().mapToLong(RunLog.Send::endMicros).max().orElse(Long.MAX_VALUE);
        for (RunLog.Fault fault : log.faults) {
            if (!fault.kind().equals(DuplicateCheck.REDIS_FLUSH) || !fault.slots().contains(slot)) {
                continue;
            }
            if (died && lastRun <= fault.injectMicros() + DuplicateCheck.OUTAGE_MARGIN) {
                return "dead before redis-flush " + fault.id() + " emptied the dead queue";
            }
            Instance successor = diedInSuccessor(messages, instance, fault);
            if (successor != null) {
                return "superseded by a newer send of its key (seq " + successor.firstSeq() + "), dead before"
                        + " redis-flush " + fault.id() + " emptied the dead queue";
            }
            // the latest send sets the time to live; counted from its reply, after Redis ran it, so never too early
            if (ttl > 0 && instance.runs.isEmpty() && !instance.consumed() && lastReply + ttl <= fault.injectMicros()) {
                return "expired before redis-flush " + fault.id() + " emptied the dead queue";
            }
            if (firstSend > fault.injectMicros()) {
                continue;
            }
            // a send that began before the flush and merged was stored before it: the flush lost it. The later
            // message took its place, and ended as the merged one would have: consumed, or dead with its reason.
            // Or gone in a later flush for a reason of its own (dead before it, say), when it was sent before this
            // flush's restore ended: a message the restore put back would have taken a later send as a merge
            for (Instance later : messages.byKey.getOrDefault(instance.topic + " " + instance.key, List.of())) {
                long laterStart = later.sends.get(0).startMicros();
                if (later == instance || laterStart <= lastSend
                        || laterStart < fault.injectMicros() - DuplicateCheck.OUTAGE_MARGIN) {
                    continue;
                }
                if (later.consumed() || later.dead != null
                        || laterStart <= fault.healMicros() + DuplicateCheck.OUTAGE_MARGIN
                        && lostInFlush(log, messages, later, excuses) != null) {
                    return "replaced by a send of its key after redis-flush " + fault.id();
                }
            }
        }
        return null;
    }

    /**
     * The newer message of the key that took this one's place and died before the flush, or null. A newer send
     * waited behind this one's delivery and took its place, and died before the flush emptied the dead queue. The
     * newer one may itself have been replaced the same way before any handler saw it: a poll whose reply never
     * reached its consumer (Redis restarted under it) leaves a lease and no delivery, and when that lease runs out
     * the send waiting behind it takes its place. So the walk passes over newer messages with no delivery.
     */
    private static @Nullable Instance diedInSuccessor(Messages messages, Instance instance, RunLog.Fault flush) {
        Instance older = instance;
        Instance next = messages.next(older);
        while (!older.consumed() && next != null && Messages.mayHaveMergedInto(older, next)) {
            if (next.runs.isEmpty()) {
                older = next;
                next = messages.next(older);
                continue;
            }
            boolean died = !next.consumed() && next.dead == null
                    && next.runs.stream().mapToLong(RunLog.Run::end).max().orElse(Long.MAX_VALUE)
                    <= flush.injectMicros() + DuplicateCheck.OUTAGE_MARGIN;
            return died ? next : null;
        }
        return null;
    }

    /**
     * The master kill that explains the loss of a non-durable message, or null: the kill hit the master of the
     * message's slot, and the send that created the message went out before the kill landed and was acknowledged
     * at most {@link #REPLICATION_LAG} before it.
     */
    private static @Nullable String lostWithUnreplicatedWrite(RunLog log, Instance instance) {
        Send creating = instance.sends.get(0);
        String slot = instance.topic + "_" + instance.slot();
        for (Fault fault : log.faults) {
            if (fault.kind().equals(DuplicateCheck.MASTER_KILL) && fault.slots().contains(slot)
                    && creating.startMicros() <= fault.injectMicros() + KILL_LANDS
                    && creating.endMicros() >= fault.injectMicros() - REPLICATION_LAG) {
                return "sent " + (fault.injectMicros() - creating.endMicros()) / 1000 + " ms before fault " + fault.id()
                        + " killed its master";
            }
            // a Sentinel failover also loses what a client wrote to the old master in the moment it came back as a
            // master, before the Sentinels made it a replica: the window runs until the failover was over
            if (fault.kind().equals(DuplicateCheck.SENTINEL_FAILOVER) && fault.slots().contains(slot)
                    && creating.startMicros() <= fault.healMicros() + KILL_LANDS
                    && creating.endMicros() >= fault.injectMicros() - REPLICATION_LAG) {
                return "sent during fault " + fault.id() + ", a Sentinel failover of its master";
            }
        }
        return null;
    }
}
