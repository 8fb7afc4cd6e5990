package dev.rmq.metrics;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * Receives what the producer and the consumers do. Implementations must be fast and thread-safe, and
 * must never tag anything with a message key. Every method does nothing by default. rmq reports a figure after the
 * work it counts: an exception thrown here drops the figure and is logged (at most once every ten seconds, under
 * this interface's logger), and fails no send and no delivery.
 */
public interface RmqMetrics {

    /** Reports nothing. */
    RmqMetrics NONE = new RmqMetrics() {
    };

    /**
     * An outage of Redis as one user saw it, once it ended: {@code who} is {@code consumer} (with its topic) or
     * {@code producer} (topic null).
     */
    default void redisOutage(String who, @Nullable String topic, Duration length) {
    }

    /**
     * A send call finished: {@code messages} of one topic (more than one in a batch), {@code merged} of
     * them merged into waiting ones. {@code error} is null on success.
     */
    default void sent(TopicDefinition topic, int messages, int merged, long nanos, @Nullable Throwable error) {
    }

    /** Sends that would have added a message past the slot's backlog cap, refused. */
    default void refused(TopicDefinition topic, int messages) {
    }

    /**
     * A topic of the client, once, as the client is built: an implementation may start the topic's meters at zero
     * here, so that a rate over a counter that has not moved yet is 0 rather than absent from a dashboard.
     */
    default void topicDefined(TopicDefinition topic) {
    }

    /** Messages of a recurring schedule's ticks sent. */
    default void scheduleTicks(String schedule, String topic, long ticks) {
    }

    /** Ticks of a schedule that fell while no application ran it; {@code policy} says what became of them. */
    default void scheduleMisfires(String schedule, String topic, String policy, long ticks) {
    }

    /** Ticks of a schedule dropped because the previous tick's message was still in flight. */
    default void scheduleSkipped(String schedule, String topic, long ticks) {
    }

    /** A schedule's tick started being handled this long after the tick's instant (by the Redis clock). */
    default void scheduleLateness(String schedule, TopicDefinition topic, long millis) {
    }

    /** A send its repeated-key rule left out: KEPT or THROTTLED. */
    default void duplicate(TopicDefinition topic, SendReceipt.Outcome outcome) {
    }

    /** A fixed-time message arrived this long after its time (within the late tolerance) and is due at once. */
    default void sentLate(TopicDefinition topic, long millis) {
    }

    /** Messages whose time to live ran out before a delivery: dropped or dead, as the topic says. */
    default void expired(TopicDefinition topic, long messages) {
    }

    /** A handler finished one message with this outcome. */
    default void consumed(TopicDefinition topic, ConsumeResult.Outcome outcome, long nanos) {
    }

    /** A time-based message started being handled this long after it was due (by the Redis clock). */
    default void lateness(TopicDefinition topic, long millis) {
    }

    /** What Redis did with one acknowledgement. */
    default void acknowledged(TopicDefinition topic, AckOutcome outcome) {
    }

    /** A poll recovered this many expired leases (each counted as a failed attempt). */
    default void recovered(TopicDefinition topic, long leases) {
    }
}
