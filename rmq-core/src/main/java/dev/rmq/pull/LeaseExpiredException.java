package dev.rmq.pull;

import dev.rmq.exceptions.RmqException;

import java.time.Duration;

/**
 * A pulled message was ended after its lease ran out, or after its slot was taken over by another consumer:
 * nothing was done to it, and it will be (or was already) delivered again.
 */
public class LeaseExpiredException extends RmqException {

    private final String topic;
    private final String key;
    private final int attempt;
    private final String reason;
    private final Duration lease;

    /**
     * @param topic   the message's topic
     * @param slot    its slot
     * @param key     its key
     * @param attempt the delivery's attempt; 0 when it is not known (a delivery settled by its reference, whose
     *                lease may have run out or whose delivery another settle ended first)
     * @param reason  why the lease was lost, as in "its lease ended 20 ms ago"
     * @param lease   the topic's lease
     */
    public LeaseExpiredException(String topic, int slot, String key, int attempt, String reason, Duration lease) {
        super("message '" + key + "' of " + topic + "_" + slot + (attempt > 0 ? " (attempt " + attempt + ")" : "")
                + " was not acknowledged: " + reason + "; nothing was done"
                + (attempt > 0 ? ", and it will be delivered again (lease " + lease + ", extend it with extend())" : ""),
                null);
        this.topic = topic;
        this.key = key;
        this.attempt = attempt;
        this.reason = reason;
        this.lease = lease;
    }

    public String topic() {
        return topic;
    }

    public String key() {
        return key;
    }

    public int attempt() {
        return attempt;
    }

    /** Why the lease was lost, without the rest of the message: for a caller that words its own. */
    public String reason() {
        return reason;
    }

    /** The topic's lease, from the delivery or its last extension. */
    public Duration lease() {
        return lease;
    }
}
