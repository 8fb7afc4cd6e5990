package dev.rmq.spring.autoconfigure;

import dev.rmq.codec.Compression;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The keys of encrypted payloads, under {@code rmq.payload}. Keep them out of {@code application.yml}: give them from
 * the environment or a secret store (e.g. {@code RMQ_PAYLOAD_KEYS_2026A}), or define a {@link PayloadKeyRing} bean,
 * which wins over these.
 *
 * @param keys       AES keys of 16, 24 or 32 bytes in base64, by id (letters, digits, {@code . _ -}); the id travels
 *                   with every message, so keep the old keys while messages that used them wait.
 * @param currentKey The id of the key that encrypts new sends; may be left out when there is one key.
 */
public record RmqPayloadProperties(Map<String, String> keys, @Nullable String currentKey) {

    public RmqPayloadProperties {
        keys = keys == null ? Map.of() : Map.copyOf(keys);
        // built here, so that a bad key fails binding with a message that names its id and never its bytes
        ring(keys, currentKey);
    }

    /** The key ring these properties give, if they give any keys. */
    public Optional<PayloadKeyRing> ring() {
        return ring(keys, currentKey);
    }

    private static Optional<PayloadKeyRing> ring(@Nullable Map<String, String> keys, @Nullable String currentKey) {
        if (keys == null || keys.isEmpty()) {
            if (currentKey != null && !currentKey.isBlank()) {
                throw new IllegalArgumentException("rmq.payload.current-key is '" + currentKey + "', and"
                        + " rmq.payload.keys gives no keys");
            }
            return Optional.empty();
        }
        PayloadKeyRing.Builder ring = PayloadKeyRing.builder();
        keys.forEach(ring::base64Key);
        if (currentKey != null && !currentKey.isBlank()) {
            ring.current(currentKey);
        }
        return Optional.of(ring.build());
    }

    /** Only the ids: the keys themselves never reach a log or an endpoint. */
    @Override
    public String toString() {
        return "RmqPayloadProperties[ids=" + new TreeSet<>(keys.keySet()) + ", currentKey=" + currentKey + "]";
    }

    /**
     * How a topic's payloads travel, under {@code rmq.topics.<name>.payload}.
     *
     * @param version       The current version of the payload's shape; sends write it, reads bring older payloads up
     *                      to it through the application's PayloadUpcaster beans. 0 (none) by default; a message sent
     *                      without a version is version 0.
     * @param compression   How payloads of at least compress-above are compressed: DEFLATE.
     * @param compressAbove The smallest payload that is compressed, e.g. 1KB; unset or 0 for never.
     * @param encrypted     Whether payloads are encrypted with AES-GCM under rmq.payload.keys.
     */
    public record TopicPayload(@Nullable Integer version, @Nullable Compression compression,
                               @Nullable DataSize compressAbove, @Nullable Boolean encrypted) {

        public TopicPayload {
            toForm(version, compression, compressAbove, encrypted);
        }

        PayloadForm toForm() {
            return toForm(version, compression, compressAbove, encrypted);
        }

        private static PayloadForm toForm(@Nullable Integer version, @Nullable Compression compression,
                                          @Nullable DataSize compressAbove, @Nullable Boolean encrypted) {
            long above = compressAbove == null ? 0 : compressAbove.toBytes();
            if (above > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("compress-above must be at most 2GB, was " + compressAbove);
            }
            return PayloadForm.PLAIN.withVersion(version == null ? 0 : version)
                    .withCompression(compression == null ? Compression.DEFLATE : compression, (int) above)
                    .withEncryption(Boolean.TRUE.equals(encrypted));
        }
    }
}
