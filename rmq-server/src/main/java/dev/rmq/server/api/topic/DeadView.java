package dev.rmq.server.api.topic;

import dev.rmq.dead.DeadMessage;
import dev.rmq.server.api.Payloads;
import tools.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A message in the dead queue.
 *
 * @param slot          its slot: give it to the requeue and delete of this message when its slot basis is not its key
 * @param reason        why it died, as a code: {@code expired}, {@code lease_expired}, {@code retries_spent}, {@code releases_spent},
 *                      {@code undecodable}, {@code undecryptable}, {@code handler_verdict}, or empty for a message that died before codes were
 *                      kept
 * @param lastError     the text of its last failure
 * @param payloadFormat {@code json}, or {@code text} for a payload that is not JSON, shown as a string
 */
public record DeadView(String topic, int slot, String key, String diedAt, int attempts, String reason, String lastError,
                       Map<String, String> headers, JsonNode payload, String payloadFormat) {

    static DeadView of(DeadMessage message, Payloads payloads) {
        Payloads.Rendered payload = payloads.render(message.headers(), message.payload());
        return new DeadView(message.topic(), message.slot(), message.key(), message.diedAt().toString(),
                message.attempts(), message.reason().code(), message.lastError(), message.headers(), payload.payload(), payload.format());
    }
}
