package dev.rmq.producer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A message as Redis holds it now.
 *
 * @param topic     the topic
 * @param slot      its slot
 * @param key       its merge key
 * @param state     where it is
 * @param score     WAITING, PARKED: due epoch ms or priority; DELAYED, RETRYING: when it becomes visible, epoch ms;
 *                  IN_FLIGHT: lease deadline in epoch microseconds; DEAD: epoch ms when it died
 * @param attempts  deliveries so far
 * @param lastError the last failure's reason, empty when none
 * @param headers   its headers
 * @param payload   its payload bytes
 * @param expiresAt when its time to live runs out, if it has one
 */
public record StoredMessage(String topic, int slot, String key, MessageState state, double score, int attempts,
                            String lastError, Map<String, String> headers, byte[] payload, Optional<Instant> expiresAt) {

    /** The payload read as UTF-8 text. */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
