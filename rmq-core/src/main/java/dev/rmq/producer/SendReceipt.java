package dev.rmq.producer;

import java.time.Duration;

/**
 * What a send did.
 *
 * @param topic  the topic
 * @param slot   the slot the message went to
 * @param key    the merge key (explicit, or derived from the payload)
 * @param merged true when the message merged into one already waiting with the same key
 * @param lateBy for a fixed time the Redis clock had already passed (within the topic's late tolerance), by how
 *               much: the message is due at once. Zero otherwise.
 */
public record SendReceipt(String topic, int slot, String key, boolean merged, Duration lateBy) {

    /** Whether the fixed time had already passed when the message arrived. */
    public boolean late() {
        return !lateBy.isZero();
    }
}
