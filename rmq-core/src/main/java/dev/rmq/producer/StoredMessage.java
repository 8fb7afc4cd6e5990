package dev.rmq.producer;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A message as Redis holds it now.
 *
 * @param topic     the topic
 * @param slot      its slot
 * @param key       its merge key
 * @param state     where it is
 * @param score     WAITING: due epoch ms or priority; RETRYING: retry-at epoch ms;
 *                  IN_FLIGHT: lease deadline in epoch microseconds; DEAD: epoch ms when it died
 * @param attempts  deliveries so far
 * @param lastError the last failure's reason, empty when none
 * @param headers   its headers
 * @param payload   its payload bytes
 */
public record StoredMessage(String topic, int slot, String key, MessageState state, double score, int attempts,
                            String lastError, Map<String, String> headers, byte[] payload) {

    /** The payload read as UTF-8 text. */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
