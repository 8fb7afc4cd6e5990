package dev.rmq.samples;

import dev.rmq.producer.SendReceipt;

/**
 * What the HTTP API answers for a send: where the message went and whether it merged into one already
 * waiting.
 */
public record SendResult(String topic, int slot, String key, boolean merged) {

    public static SendResult of(SendReceipt receipt) {
        return new SendResult(receipt.topic(), receipt.slot(), receipt.key(), receipt.merged());
    }
}
