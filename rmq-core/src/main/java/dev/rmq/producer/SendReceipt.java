package dev.rmq.producer;

import java.time.Duration;

/**
 * What a send did.
 *
 * @param topic   the topic
 * @param slot    the slot the message went to
 * @param key     the merge key (explicit, or derived from the payload)
 * @param outcome whether the message was added, merged into a waiting one of its key, left out by its
 *                repeated-key rule (kept, throttled), or held until a transaction commits (deferred)
 * @param lateBy  for a fixed time the Redis clock had already passed (within the topic's late tolerance), by how
 *                much: the message is due at once. Zero otherwise.
 * @param behindDelivery for a message added, whether a delivery of its key was in flight: it waits until that
 *                delivery ends, since a key's messages are handled one at a time. False for any other outcome.
 */
public record SendReceipt(String topic, int slot, String key, Outcome outcome, Duration lateBy,
                          boolean behindDelivery) {

    /** A receipt of a message that waits behind no delivery. */
    public SendReceipt(String topic, int slot, String key, Outcome outcome, Duration lateBy) {
        this(topic, slot, key, outcome, lateBy, false);
    }

    /** What became of the message. */
    public enum Outcome {
        /** Written as a new message. */
        ADDED,
        /** Merged into a message of its key that was waiting (REPLACE, DEBOUNCE, or a THROTTLE send let through). */
        MERGED,
        /** Not written: a message of its key waits or is parked, and the rule is KEEP_FIRST. */
        KEPT,
        /** Not written: its key was accepted within the THROTTLE window, even if consumed since. */
        THROTTLED,
        /**
         * Not written yet: held until the transaction around the send commits (see {@link SendHold}), and sent then,
         * or dropped if it rolls back. The receipt's slot and key are those the send will have. The asynchronous
         * send's stage completes with the real outcome once it has been sent.
         */
        DEFERRED;

        /** Whether this send's content is in Redis: added or merged. */
        public boolean written() {
            return this == ADDED || this == MERGED;
        }
    }

    /** True when the message merged into one already waiting with the same key. */
    public boolean merged() {
        return outcome == Outcome.MERGED;
    }

    /** Whether this send's content is in Redis: false when its repeated-key rule left it out (kept, throttled). */
    public boolean written() {
        return outcome.written();
    }

    /** Whether the fixed time had already passed when the message arrived. */
    public boolean late() {
        return !lateBy.isZero();
    }
}
