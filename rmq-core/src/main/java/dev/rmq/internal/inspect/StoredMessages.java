package dev.rmq.internal.inspect;

import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.StoredMessage;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Messages as the API shows them, made from what Redis holds. */
public final class StoredMessages {

    private StoredMessages() {
    }

    /**
     * A stored message as the API shows it, from the bytes Redis holds: an envelope this version cannot read shows
     * as its raw bytes, with the reason as its last error.
     */
    public static StoredMessage of(String topic, int slot, String key, MessageState state, double score, byte[] raw) {
        try {
            Envelope envelope = Envelope.decode(raw);
            return new StoredMessage(topic, slot, key, state, score, envelope.attempts(), envelope.lastError(),
                    envelope.headers(), envelope.payload(), envelope.expireAt() == 0 ? Optional.empty()
                    : Optional.of(Instant.ofEpochMilli(envelope.expireAt())));
        } catch (MalformedEnvelopeException e) {
            return new StoredMessage(topic, slot, key, state, score, 0, "cannot decode: " + e.getMessage(), Map.of(),
                    raw == null ? new byte[0] : raw, Optional.empty());
        }
    }
}
