package dev.rmq.producer;

import dev.rmq.internal.validation.MessageArguments;
import dev.rmq.topic.Names;
import org.jspecify.annotations.Nullable;

/**
 * Points at a message by topic and key, for the operations by key. When the message was sent with an
 * explicit slot basis, the same basis must be given here, since it decides the slot. On a topic whose slots are
 * spread over zones, the slot also depends on the zone it was sent from: the producer's own, unless
 * {@link #withZone(String)} names another.
 *
 * @param topic     the message's topic
 * @param key       the message's key
 * @param slotBasis the slot basis it was sent with, or null when that was its key
 * @param zone      the zone it was sent from, or null for the producer's own
 */
public record MessageRef(String topic, String key, @Nullable String slotBasis, @Nullable String zone) {

    public MessageRef {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be null or empty");
        }
        MessageArguments.checkKey("key", key);
        if (slotBasis != null) {
            MessageArguments.checkKey("slotBasis", slotBasis);
        }
        if (zone != null) {
            Names.check("zone name", zone);
        }
    }

    /** Points at a message sent from the producer's own zone; {@code slotBasis} is null when it was the key. */
    public MessageRef(String topic, String key, @Nullable String slotBasis) {
        this(topic, key, slotBasis, null);
    }

    public static MessageRef of(String topic, String key) {
        return new MessageRef(topic, key, null, null);
    }

    public MessageRef withSlotBasis(String basis) {
        return new MessageRef(topic, key, basis, zone);
    }

    /** The zone the message was sent from, when it is not the producer's own. */
    public MessageRef withZone(String sentFrom) {
        return new MessageRef(topic, key, slotBasis, sentFrom);
    }

    /** The slot basis in effect: the explicit one, or the key. */
    public String effectiveSlotBasis() {
        return slotBasis != null ? slotBasis : key;
    }
}
