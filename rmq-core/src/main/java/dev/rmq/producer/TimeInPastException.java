package dev.rmq.producer;

import java.time.Duration;
import java.time.Instant;

/**
 * A fixed time lay further behind the Redis clock than the topic's late tolerance when it reached Redis: the send,
 * or the reschedule, was refused and nothing was written. The Redis clock is the one every due time is read by,
 * so that a client's clock cannot make a message early or late.
 */
public class TimeInPastException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final String key;
    private final Instant time;
    private final Instant redisClock;
    private final Duration tolerance;

    /**
     * @param topic      the topic
     * @param key        the message's key
     * @param time       the fixed time asked for
     * @param redisClock the Redis clock when the script judged it
     * @param tolerance  the topic's late tolerance
     */
    public TimeInPastException(String topic, String key, Instant time, Instant redisClock, Duration tolerance) {
        super("fixed time " + time + " of key \"" + key + "\" in topic '" + topic + "' is "
                + Duration.between(time, redisClock).toMillis() + " ms behind the Redis clock (" + redisClock
                + "), more than the topic's late tolerance of " + tolerance.toMillis() + " ms; nothing was written");
        this.topic = topic;
        this.key = key;
        this.time = time;
        this.redisClock = redisClock;
        this.tolerance = tolerance;
    }

    public String topic() {
        return topic;
    }

    public String key() {
        return key;
    }

    /** The fixed time asked for. */
    public Instant time() {
        return time;
    }

    /** The Redis clock when the script judged the time. */
    public Instant redisClock() {
        return redisClock;
    }

    /** How far behind the Redis clock a fixed time may lie and still be taken, due at once. */
    public Duration tolerance() {
        return tolerance;
    }
}
