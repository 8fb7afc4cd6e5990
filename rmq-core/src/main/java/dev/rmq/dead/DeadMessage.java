package dev.rmq.dead;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * A message in the dead queue.
 *
 * @param topic     the topic
 * @param slot      its slot
 * @param key       its merge key
 * @param diedAt    when it moved to dead, by the Redis clock
 * @param attempts  how many deliveries it had
 * @param reason    why it died, as a code
 * @param lastError the text of its last failure
 * @param headers   its headers
 * @param payload   its payload bytes (for an undecodable message, the raw stored bytes)
 */
public record DeadMessage(String topic, int slot, String key, Instant diedAt, int attempts, DeadReason reason,
                          String lastError,
                          Map<String, String> headers, byte[] payload) {

    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
