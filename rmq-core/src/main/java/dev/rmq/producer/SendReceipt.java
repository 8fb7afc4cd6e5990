package dev.rmq.producer;

/**
 * What a send did.
 *
 * @param topic  the topic
 * @param slot   the slot the message went to
 * @param key    the merge key (explicit, or derived from the payload)
 * @param merged true when the message merged into one already waiting with the same key
 */
public record SendReceipt(String topic, int slot, String key, boolean merged) {
}
