package dev.rmq.faults.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Set;

/**
 * One thing that happened in a fault-harness run, as one JSON line of a process's {@code .events} file. Every
 * process runs on one host, so {@code micros} (the host clock, microseconds since the epoch) orders events
 * across processes. The invariant checker decides from these events alone; the processes' logs are for people.
 *
 * <p>{@code incarnation} names one life of a consumer process ({@code c2-1}, then {@code c2-2} after a kill);
 * {@code worker} names one of its consumer threads as rmq does ({@code <container>-<n>}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "event")
@JsonSubTypes({
        @JsonSubTypes.Type(value = HarnessEvent.RunStarted.class, name = "run-started"),
        @JsonSubTypes.Type(value = HarnessEvent.Sent.class, name = "sent"),
        @JsonSubTypes.Type(value = HarnessEvent.SendFailed.class, name = "send-failed"),
        @JsonSubTypes.Type(value = HarnessEvent.Delivered.class, name = "delivered"),
        @JsonSubTypes.Type(value = HarnessEvent.Handled.class, name = "handled"),
        @JsonSubTypes.Type(value = HarnessEvent.Acknowledged.class, name = "acknowledged"),
        @JsonSubTypes.Type(value = HarnessEvent.AckFailed.class, name = "ack-failed"),
        @JsonSubTypes.Type(value = HarnessEvent.SlotFenced.class, name = "slot-fenced"),
        @JsonSubTypes.Type(value = HarnessEvent.OwnerChanged.class, name = "owner-changed"),
        @JsonSubTypes.Type(value = HarnessEvent.LeasesRecovered.class, name = "leases-recovered"),
        @JsonSubTypes.Type(value = HarnessEvent.SessionChanged.class, name = "session-changed"),
        @JsonSubTypes.Type(value = HarnessEvent.ProcessStarted.class, name = "process-started"),
        @JsonSubTypes.Type(value = HarnessEvent.ProcessEnded.class, name = "process-ended"),
        @JsonSubTypes.Type(value = HarnessEvent.ProcessPaused.class, name = "process-paused"),
        @JsonSubTypes.Type(value = HarnessEvent.FaultInjected.class, name = "fault-injected"),
        @JsonSubTypes.Type(value = HarnessEvent.DeadAtEnd.class, name = "dead-at-end"),
        @JsonSubTypes.Type(value = HarnessEvent.RunEnded.class, name = "run-ended"),
})
public sealed interface HarnessEvent {

    long micros();

    /**
     * The run's set-up, written first by the harness.
     *
     * @param sessionTimeoutMs the consumers' ZooKeeper session timeout
     * @param leaseMs          the topics' lease
     * @param topics           every topic of the run
     */
    record RunStarted(long micros, long sessionTimeoutMs, long leaseMs, List<Topic> topics) implements HarnessEvent {
    }

    /**
     * A topic: its name, type ({@code RANGE_MERGE}, {@code PRIORITY}, {@code FIXED_TIME}), Redis deployment, delivery
     * guarantee ({@code AT_LEAST_ONCE}, {@code AT_MOST_ONCE}) and time to live in ms (0 for none).
     */
    record Topic(String name, String type, String deployment, String delivery, long ttlMs) {
    }

    /**
     * A send's receipt (the producer's or the harness's own), written when the send returned.
     *
     * @param seq         the send's number, which its payload carries
     * @param merged      whether it merged into a waiting message
     * @param durable     whether it waited for a replica
     * @param startMicros when the send began
     * @param value       its time range (ms), priority or fixed time (epoch ms)
     */
    record Sent(long micros, long seq, String topic, String key, int slot, boolean merged, boolean durable,
                long startMicros, long value) implements HarnessEvent {
    }

    /** A send that threw: it may or may not have been applied. */
    record SendFailed(long micros, long seq, String topic, String key, boolean durable, long startMicros, long value,
                      String error) implements HarnessEvent {
    }

    /**
     * A handler started on a message.
     *
     * @param seq        the send whose payload it carries
     * @param probe      whether it is one of the harness's recovery probes
     * @param redisNowMs the Redis clock read at its start: the host clock, which every Redis of the run reads
     * @param dueMs      rmq's due time of the delivery (-1 for priority messages)
     * @param fixedMs    the fixed time its payload was sent with (0 for other types)
     * @param leaseMs    its lease deadline by the Redis clock
     * @param workMs     how long the handler works
     * @param callMicros when the handler call that runs it began: its own start, but for a batch listener's later
     *                   messages, which one call runs one after another (absent in logs that predate it: its own
     *                   start)
     */
    record Delivered(long micros, String incarnation, String worker, String topic, int slot, String key, long seq,
                     boolean probe, int attempt, long redisNowMs, long dueMs, long fixedMs, long leaseMs, int workMs,
                     @Nullable Long callMicros)
            implements HarnessEvent {
    }

    /** A handler ended: {@code ok}, {@code err} (an injected error) or {@code poison}. */
    record Handled(long micros, String incarnation, String worker, String topic, int slot, String key, long seq,
                   int attempt, String outcome) implements HarnessEvent {
    }

    /** rmq reported what Redis did with an acknowledgement: committed, retry, dead, merged, released, stale, gone. */
    record Acknowledged(long micros, String incarnation, String worker, String topic, int slot, String key,
                        String outcome) implements HarnessEvent {
    }

    /** rmq reported that an acknowledgement call failed; its deliveries are left to lease recovery. */
    record AckFailed(long micros, String incarnation, String worker, String topic, int slot, List<String> keys,
                     String error) implements HarnessEvent {
    }

    /** rmq found its worker fenced out of a slot, {@code during} a poll, an ack or an extension. */
    record SlotFenced(long micros, String incarnation, String worker, String topic, int slot, String during)
            implements HarnessEvent {
    }

    /** A worker was given a slot ({@code owns}), or let it go. */
    record OwnerChanged(long micros, String incarnation, String worker, String topic, int slot, boolean owns)
            implements HarnessEvent {
    }

    /** rmq's poll of a slot recovered deliveries whose lease had run out. */
    record LeasesRecovered(long micros, String incarnation, String worker, String topic, int slot, long count)
            implements HarnessEvent {
    }

    /** A consumer's ZooKeeper connection changed state (CONNECTED, SUSPENDED, RECONNECTED, LOST). */
    record SessionChanged(long micros, String incarnation, String state, String session) implements HarnessEvent {
    }

    /** The harness started a consumer process. */
    record ProcessStarted(long micros, String incarnation) implements HarnessEvent {
    }

    /** A consumer process ended: SIGKILLed by a fault, or at the end of the run. */
    record ProcessEnded(long micros, String incarnation, boolean killed) implements HarnessEvent {
    }

    /** A consumer process was frozen by SIGSTOP from {@code micros} until {@code resumedMicros}. */
    record ProcessPaused(long micros, String incarnation, long resumedMicros) implements HarnessEvent {
    }

    /**
     * A fault, written once it was undone and its recovery measured.
     *
     * @param id             its number in the run
     * @param kind           what was done (kill, stop, redis-restart, ...)
     * @param target         whom it hit: a consumer incarnation, a Redis node, ZooKeeper
     * @param healMicros     when the harness undid it, or saw the topology settle again
     * @param recoveryMicros from injection until every slot was consumed again; -1 when that did not happen in time
     * @param slots          for a Redis fault, the rmq slots ({@code topic_index}) that lived on the node it hit
     * @param detail         a note for people
     */
    record FaultInjected(long micros, int id, String kind, String target, long healMicros, long recoveryMicros,
                         Set<String> slots, String detail) implements HarnessEvent {
    }

    /**
     * A message found in the dead queue at the end.
     *
     * @param seq    the send whose payload it carries; -1 when its payload is not the harness's
     * @param reason why it died, as the dead queue's code ({@code DeadReason.code()}), empty when unknown
     */
    record DeadAtEnd(long micros, String topic, int slot, String key, long seq, boolean probe, String reason,
                     String lastError, int attempts) implements HarnessEvent {
    }

    /** The run's end: handlers without an end by then ended with it. */
    record RunEnded(long micros) implements HarnessEvent {
    }
}
