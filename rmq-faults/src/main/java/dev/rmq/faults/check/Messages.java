package dev.rmq.faults.check;

import dev.rmq.faults.check.RunLog.Dead;
import dev.rmq.faults.check.RunLog.Run;
import dev.rmq.faults.check.RunLog.Send;
import dev.rmq.faults.check.RunLog.TroubleKind;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The messages of a run, each an {@link Instance}: the sends of one key, in the producer's order, with the
 * deliveries and the dead entry that belong to it, and what became of it.
 *
 * <p>A receipt with {@code merged=false} starts an instance and the later receipts with {@code merged=true} join
 * it (a failed send joins the instance in progress; merged receipts with no instance before them start one whose
 * first send failed). An instance with at least one receipt is accountable. Every delivery carries the seq of the
 * send whose payload it has, which names its instance. A failed send whose payload a delivery carries, after a
 * delivery of the same instance that carried an older payload began, reached Redis after that delivery took the
 * message: it went behind the delivery as a message of its own, and starts an instance of its own.
 */
final class Messages {

    enum Status { CONSUMED, DEAD, SUPERSEDED, LOST, UNRECEIPTED }

    static final class Instance {
        final String topic;
        final String key;
        final String type;
        // most messages have one send and one delivery: a list's default room for ten would waste about 64 bytes a
        // message
        final List<Send> sends = new ArrayList<>(1);
        final List<Run> runs = new ArrayList<>(1);
        /**
         * For an instance split off behind a delivery ({@link #splitBehindDelivery}): the earliest time (epoch µs)
         * at which a failed send of the instance before it, whose call was still under way when that delivery
         * began, may have been applied and made this message; {@code Long.MAX_VALUE} for none. Its time range
         * counts from then.
         */
        long lateCreationMicros = Long.MAX_VALUE;
        /** The time range of that send, in ms. */
        long lateCreationRangeMs;
        /** Its entry in the dead queue at the end of the run, or null. */
        @Nullable Dead dead;
        /** Null until the messages are all read and their statuses decided. */
        @Nullable Status status;

        Instance(String topic, String key, String type) {
            this.topic = topic;
            this.key = key;
            this.type = type;
        }

        long firstSeq() {
            return sends.get(0).seq();
        }

        /** Whether its sends waited for a replica: a burst goes through one producer, durable or not. */
        boolean durable() {
            return sends.get(0).durable();
        }

        boolean accountable() {
            return sends.stream().anyMatch(Send::ok);
        }

        boolean consumed() {
            return runs.stream().anyMatch(Run::succeeded);
        }

        /** The slot, from the first receipt. */
        int slot() {
            return sends.stream().filter(Send::ok).mapToInt(Send::slot).findFirst().orElse(-1);
        }

        /** The earliest time (epoch ms, Redis clock = host clock) at which this message could have been polled. */
        long earliestDueMs() {
            Send first = sends.get(0);
            return switch (type) {
                case "RANGE_MERGE" -> first.startMicros() / 1000 + first.value();
                case "FIXED_TIME" -> sends.get(sends.size() - 1).value();
                default -> Long.MIN_VALUE;
            };
        }

        /**
         * For a range-merge message, the earliest due time a delivery carrying the payload of send {@code seq} can
         * have: the message was created by one of the sends up to it that did not merge (or failed, yet may have
         * been applied), at that send's start or later, and a merge keeps the creating send's due time.
         */
        long earliestRangeDueMs(long seq) {
            long earliest = Long.MAX_VALUE;
            for (Send send : sends) {
                if (send.seq() <= seq && send.mayCreate()) {
                    earliest = Math.min(earliest, send.startMicros() / 1000 + send.value());
                }
            }
            if (lateCreationMicros != Long.MAX_VALUE) {
                earliest = Math.min(earliest, lateCreationMicros / 1000 + lateCreationRangeMs);
            }
            return earliest == Long.MAX_VALUE ? Long.MIN_VALUE : earliest;
        }

        String describe() {
            StringBuilder text = new StringBuilder(topic + " " + key + " sends");
            for (Send send : sends) {
                text.append(' ').append(send.seq()).append(send.ok() ? (send.merged() ? "(merged)" : "(new)") : "(failed)")
                        .append('@').append(send.startMicros());
            }
            text.append(", ").append(runs.size()).append(" delivery(ies)");
            return text.toString();
        }
    }

    final Map<String, List<Instance>> byKey = new HashMap<>();
    long sent;
    long merged;
    long sendFailures;
    long unattributedRuns;
    long unattributedDead;
    /** Failed sends found to have gone behind a delivery, as instances of their own. */
    long splitsBehindDelivery;
    private final RunLog log;
    /** "topic key seq" of each message the dead queue held at the end of the run. */
    private final Set<String> deadSends = new HashSet<>();

    Messages(RunLog log) {
        this.log = log;
        for (Dead dead : log.dead) {
            deadSends.add(dead.topic() + " " + dead.key() + " " + dead.seq());
        }
        for (Send send : log.sends) {
            if (send.ok()) {
                sent++;
                if (send.merged()) {
                    merged++;
                }
            } else {
                sendFailures++;
            }
            List<Instance> instances = byKey.computeIfAbsent(send.topic() + " " + send.key(), k -> new ArrayList<>(1));
            Instance current = instances.isEmpty() ? null : instances.get(instances.size() - 1);
            if (current == null || (send.ok() && !send.merged())) {
                current = new Instance(send.topic(), send.key(), log.typeOf(send.topic()));
                instances.add(current);
            }
            current.sends.add(send);
        }
        List<Run> runs = log.runs.stream().filter(run -> !run.probe()).sorted(Comparator.comparingLong(Run::start))
                .toList();
        // in start order, each run beside the runs of its key that began before it
        Map<String, List<Run>> earlier = new HashMap<>();
        for (Run run : runs) {
            List<Run> before = earlier.computeIfAbsent(run.topic() + " " + run.key(), k -> new ArrayList<>(1));
            splitBehindDelivery(run, before);
            before.add(run);
        }
        for (Run run : runs) {
            Instance instance = instanceOf(run.topic(), run.key(), run.seq());
            if (instance == null) {
                unattributedRuns++;
            } else {
                instance.runs.add(run);
            }
        }
        for (Dead dead : log.dead) {
            Instance instance = dead.probe() || dead.seq() < 0 ? null : instanceOf(dead.topic(), dead.key(), dead.seq());
            if (instance == null) {
                unattributedDead++;
            } else {
                instance.dead = dead;
            }
        }
        decideStatuses();
    }

    /**
     * When {@code run} carries the payload of a failed send that joined an instance in progress, and a delivery of
     * that instance carrying an older payload began before it, the failed send starts an instance of its own: it
     * reached Redis while that delivery was in flight (and went behind it), or after its commit or its move to the
     * dead queue (and made a new message). Not when that delivery had failed, and its message gone back to wait for
     * its retry, before the send's call ended: then the send may have merged into that message, keeping the retry's
     * due time, which may come before the send's own time range is over.
     */
    private void splitBehindDelivery(Run run, List<Run> earlierOfKey) {
        List<Instance> instances = byKey.get(run.topic() + " " + run.key());
        Instance instance = instanceOf(run.topic(), run.key(), run.seq());
        if (instances == null || instance == null || instance.firstSeq() == run.seq()) {
            return;
        }
        int at = -1;
        for (int i = 0; i < instance.sends.size(); i++) {
            if (instance.sends.get(i).seq() == run.seq()) {
                at = i;
            }
        }
        Send failed = at <= 0 ? null : instance.sends.get(at);
        if (failed == null || failed.ok()) {
            return;
        }
        long firstSeq = instance.firstSeq();
        Run ahead = earlierOfKey.stream().filter(other -> other.seq() < run.seq() && other.seq() >= firstSeq
                && other.start() < run.start() && (goneForGood(other) || inFlightUntil(other) > failed.endMicros()))
                .findFirst().orElse(null);
        if (ahead == null) {
            return;
        }
        Instance behind = new Instance(instance.topic, instance.key, instance.type);
        // a failed send before it whose call was still under way when that delivery began may have been applied
        // after it, and made this message itself (a call stuck on a stalled master is applied seconds late)
        for (Send earlier : instance.sends.subList(0, at)) {
            if (!earlier.ok() && earlier.endMicros() > ahead.start()) {
                long applied = Math.max(earlier.startMicros(), ahead.start());
                if (applied / 1000 + earlier.value() < behind.lateCreationMicros / 1000 + behind.lateCreationRangeMs) {
                    behind.lateCreationMicros = applied;
                    behind.lateCreationRangeMs = earlier.value();
                }
            }
        }
        List<Send> moved = instance.sends.subList(at, instance.sends.size());
        behind.sends.addAll(moved);
        moved.clear();
        instances.add(instances.indexOf(instance) + 1, behind);
        splitsBehindDelivery++;
    }

    /** Whether the message of {@code run} left Redis with it: committed, or moved to the dead queue. */
    private boolean goneForGood(Run run) {
        return run.succeeded() || deadSends.contains(run.topic() + " " + run.key() + " " + run.seq());
    }

    /**
     * Until when the delivery of {@code run} may have kept its message in flight: until its end, when its ending put
     * the message back to wait for its retry; until its lease ran out, when it never ended (its consumer was killed
     * or stopped) or rmq reported the call of its ending failed.
     */
    private long inFlightUntil(Run run) {
        boolean endingFailed = log.reported(run, TroubleKind.FAILED, run.end() - DuplicateCheck.MS,
                run.end() + DuplicateCheck.ACK_GRACE) != null;
        return "none".equals(run.outcome()) || endingFailed ? Math.max(run.end(), run.leaseMs() * DuplicateCheck.MS)
                : run.end();
    }

    /** The instance of {@code key} that the send {@code seq} belongs to, or null. */
    @Nullable Instance instanceOf(String topic, String key, long seq) {
        List<Instance> instances = byKey.get(topic + " " + key);
        if (instances == null) {
            return null;
        }
        Instance found = null;
        for (Instance instance : instances) {
            if (instance.firstSeq() <= seq) {
                found = instance;
            } else {
                break;
            }
        }
        return found;
    }

    /** The instance of the same key after {@code instance}, or null. */
    @Nullable Instance next(Instance instance) {
        List<Instance> instances = byKey.getOrDefault(instance.topic + " " + instance.key, List.of());
        int i = instances.indexOf(instance);
        return i < 0 || i + 1 >= instances.size() ? null : instances.get(i + 1);
    }

    List<Instance> all() {
        List<Instance> all = new ArrayList<>();
        byKey.values().forEach(all::addAll);
        return all;
    }

    /**
     * Consumed when a handler finished it successfully; dead when the dead queue holds it at the end;
     * superseded when neither, but the next instance of its key is covered and this one may have been in flight
     * when that one was sent (a failed, expired or released delivery then finds the newer send waiting and merges
     * into it); lost otherwise.
     */
    private void decideStatuses() {
        for (List<Instance> instances : byKey.values()) {
            boolean nextCovered = false;
            Instance next = null;
            for (int i = instances.size() - 1; i >= 0; i--) {
                Instance instance = instances.get(i);
                if (instance.consumed()) {
                    instance.status = Status.CONSUMED;
                } else if (instance.dead != null) {
                    instance.status = Status.DEAD;
                } else if (next != null && nextCovered && mayHaveMergedInto(instance, next)) {
                    instance.status = Status.SUPERSEDED;
                } else {
                    instance.status = Status.LOST;
                }
                boolean covered = instance.status != Status.LOST;
                if (!instance.accountable()) {
                    instance.status = Status.UNRECEIPTED;
                }
                nextCovered = covered;
                next = instance;
            }
        }
    }

    /**
     * Whether {@code older} could have been in flight when {@code newer} was created, so that it merged into it.
     * For a time-based message this is only possible once it was due.
     */
    static boolean mayHaveMergedInto(Instance older, Instance newer) {
        long newerCreatedMs = newer.sends.get(0).endMicros() / 1000;
        return older.earliestDueMs() <= newerCreatedMs + 100;
    }
}
