package dev.rmq.internal.inspect;

import dev.rmq.consumer.Progress;
import dev.rmq.internal.payload.Payloads;
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
    public static StoredMessage of(String topic, int slot, String key, MessageState state, double score, byte[] raw,
                                   String progress) {
        Optional<Progress> reported = progress(progress);
        try {
            Envelope envelope = Envelope.decode(raw);
            int attempts = state == MessageState.IN_FLIGHT ? envelope.deliveredAttempt() : envelope.attempts();
            return new StoredMessage(topic, slot, key, state, score, attempts, envelope.lastError(),
                    envelope.headers(), Payloads.shown(envelope.headers(), envelope.payload()), envelope.expireAt() == 0 ? Optional.empty()
                    : Optional.of(Instant.ofEpochMilli(envelope.expireAt())), reported);
        } catch (MalformedEnvelopeException e) {
            return new StoredMessage(topic, slot, key, state, score, 0, "cannot decode: " + e.getMessage(), Map.of(),
                    raw == null ? new byte[0] : raw, Optional.empty(), reported);
        }
    }

    /**
     * A delivery's progress as progress.lua stores it, {@code percent:reported ms:note}; empty for "" (none). A
     * value that does not read so is shown as unknown rather than failing the whole read.
     */
    static Optional<Progress> progress(String stored) {
        if (stored == null || stored.isEmpty()) {
            return Optional.empty();
        }
        int first = stored.indexOf(':');
        int second = first < 0 ? -1 : stored.indexOf(':', first + 1);
        try {
            if (second > 0) {
                return Optional.of(new Progress(Integer.parseInt(stored.substring(0, first)), stored.substring(second + 1),
                        Instant.ofEpochMilli(Long.parseLong(stored.substring(first + 1, second)))));
            }
        } catch (IllegalArgumentException e) {
            // falls through to unknown
        }
        return Optional.of(new Progress(0, "unreadable progress: "
                + stored.substring(0, Math.min(stored.length(), 200)), Instant.EPOCH));
    }
}
