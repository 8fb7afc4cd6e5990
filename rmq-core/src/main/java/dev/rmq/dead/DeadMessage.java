package dev.rmq.dead;

import dev.rmq.codec.PayloadForm;

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
 * @param payload   its payload bytes, inflated when it was compressed and empty when it is encrypted (see {@link
 *                  #encrypted()}); for an undecodable message, the bytes its codec could not read
 */
public record DeadMessage(String topic, int slot, String key, Instant diedAt, int attempts, DeadReason reason,
                          String lastError,
                          Map<String, String> headers, byte[] payload) {

    /** Whether its payload is encrypted, which the dead queue never shows. */
    public boolean encrypted() {
        return PayloadForm.isEncrypted(headers);
    }

    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
