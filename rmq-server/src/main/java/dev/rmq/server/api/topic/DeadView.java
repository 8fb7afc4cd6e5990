package dev.rmq.server.api.topic;

import dev.rmq.dead.DeadMessage;
import dev.rmq.server.api.Payloads;
import tools.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A message in the dead queue.
 *
 * @param slot          its slot: give it to the requeue and delete of this message when its slot basis is not its key
 * @param lastError     why it died: its last failure, or the reason it was buried with
 * @param payloadFormat {@code json}, or {@code text} for a payload that is not JSON, shown as a string
 */
public record DeadView(String topic, int slot, String key, String diedAt, int attempts, String lastError,
                       Map<String, String> headers, JsonNode payload, String payloadFormat) {

    static DeadView of(DeadMessage message, Payloads payloads) {
        Payloads.Rendered payload = payloads.render(message.payload());
        return new DeadView(message.topic(), message.slot(), message.key(), message.diedAt().toString(),
                message.attempts(), message.lastError(), message.headers(), payload.payload(), payload.format());
    }
}
