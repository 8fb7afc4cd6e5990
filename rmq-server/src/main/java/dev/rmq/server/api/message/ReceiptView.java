package dev.rmq.server.api.message;

import dev.rmq.producer.SendReceipt;

/**
 * What a send did.
 *
 * @param outcome ADDED, MERGED (into a waiting message of its key), KEPT (left out: a message of its key waits
 *                and the rule is KEEP_FIRST) or THROTTLED (left out: its key was accepted within the throttle window)
 * @param merged  whether the message merged into a waiting one of the same key
 * @param lateBy for a fixed time already past (within the topic's late tolerance), by how much; the message is
 *               due at once. {@code PT0S} otherwise.
 * @param behindDelivery whether it was added while a delivery of its key was in flight: it waits for that delivery
 *               to end
 */
public record ReceiptView(String topic, String key, int slot, String outcome, boolean merged, String lateBy,
                          boolean behindDelivery) {

    static ReceiptView of(SendReceipt receipt) {
        return new ReceiptView(receipt.topic(), receipt.key(), receipt.slot(), receipt.outcome().name(),
                receipt.merged(), receipt.lateBy().toString(), receipt.behindDelivery());
    }
}
