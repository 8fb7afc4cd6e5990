package dev.rmq.producer;

import dev.rmq.internal.validation.MessageArguments;

/**
 * Points at a message by topic and key, for the operations by key. When the message was sent with an
 * explicit slot basis, the same basis must be given here, since it decides the slot.
 */
public record MessageRef(String topic, String key, String slotBasis) {

    public MessageRef {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be null or empty");
        }
        MessageArguments.checkKey("key", key);
        if (slotBasis != null) {
            MessageArguments.checkKey("slotBasis", slotBasis);
        }
    }

    public static MessageRef of(String topic, String key) {
        return new MessageRef(topic, key, null);
    }

    public MessageRef withSlotBasis(String basis) {
        return new MessageRef(topic, key, basis);
    }

    /** The slot basis in effect: the explicit one, or the key. */
    public String effectiveSlotBasis() {
        return slotBasis != null ? slotBasis : key;
    }
}
