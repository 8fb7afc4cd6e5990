package dev.rmq.server.api.message;

import dev.rmq.producer.SendReceipt;

/**
 * What a send did.
 *
 * @param merged whether the message merged into a waiting one of the same key
 * @param lateBy for a fixed time already past (within the topic's late tolerance), by how much; the message is
 *               due at once. {@code PT0S} otherwise.
 */
public record ReceiptView(String topic, String key, int slot, boolean merged, String lateBy) {

    static ReceiptView of(SendReceipt receipt) {
        return new ReceiptView(receipt.topic(), receipt.key(), receipt.slot(), receipt.merged(),
                receipt.lateBy().toString());
    }
}
