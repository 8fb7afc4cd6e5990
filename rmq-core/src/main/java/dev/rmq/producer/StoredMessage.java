package dev.rmq.producer;

import dev.rmq.codec.PayloadForm;
import dev.rmq.consumer.Progress;
import dev.rmq.topic.TopicType;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A message as Redis holds it now.
 *
 * @param topic     the topic
 * @param slot      its slot
 * @param key       its merge key
 * @param state     where it is
 * @param score     WAITING, PARKED: due epoch ms or priority; DELAYED: when it becomes visible, epoch ms; RETRYING:
 *                  when it is due again (a time type) or becomes visible again (priority), epoch ms;
 *                  IN_FLIGHT: lease deadline in epoch microseconds; DEAD: epoch ms when it died
 * @param attempts  deliveries so far
 * @param lastError the last failure's reason, empty when none
 * @param headers   its headers
 * @param payload   its payload bytes: inflated when it was compressed, empty when it is encrypted (see {@link
 *                  #encrypted()})
 * @param expiresAt when its time to live runs out, if it has one
 * @param progress  IN_FLIGHT: what its handler last reported of its progress, if it reported any
 */
public record StoredMessage(String topic, int slot, String key, MessageState state, double score, int attempts,
                            String lastError, Map<String, String> headers, byte[] payload, Optional<Instant> expiresAt,
                            Optional<Progress> progress) {

    /** Whether its payload is encrypted, which inspection never shows. */
    public boolean encrypted() {
        return PayloadForm.isEncrypted(headers);
    }

    /** The payload read as UTF-8 text. */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** When a waiting, parked or retrying message of a time type ({@code type}, its topic's) is due. */
    public Optional<Instant> dueTime(TopicType type) {
        boolean waiting = state == MessageState.WAITING || state == MessageState.PARKED
                || state == MessageState.RETRYING;
        return waiting && type.isTimed() ? Optional.of(Instant.ofEpochMilli((long) score)) : Optional.empty();
    }

    /** The priority of a waiting or parked priority message ({@code type}, its topic's). */
    public OptionalLong priority(TopicType type) {
        boolean waiting = state == MessageState.WAITING || state == MessageState.PARKED;
        return waiting && !type.isTimed() ? OptionalLong.of((long) score) : OptionalLong.empty();
    }

    /** When a delayed or retrying message becomes visible, or due again. */
    public Optional<Instant> visibleAt() {
        boolean later = state == MessageState.DELAYED || state == MessageState.RETRYING;
        return later ? Optional.of(Instant.ofEpochMilli((long) score)) : Optional.empty();
    }

    /**
     * When the lease of a message in flight runs out, to the millisecond, as every time rmq shows (Redis keeps it in
     * microseconds, as the delivery's token).
     */
    public Optional<Instant> leaseDeadline() {
        if (state != MessageState.IN_FLIGHT) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochMilli((long) score / 1_000));
    }

    /** When a dead message died. */
    public Optional<Instant> diedAt() {
        return state == MessageState.DEAD ? Optional.of(Instant.ofEpochMilli((long) score)) : Optional.empty();
    }
}
