package dev.rmq.outbox.jdbc;

import dev.rmq.codec.EncodedPayload;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * One send as the outbox table holds it: everything the relay needs to send it again, with the payload already
 * encoded and the key already settled.
 */
record OutboxRow(long id, String topic, TopicType type, String key, @Nullable String slotBasis, long value,
                 Map<String, String> headers, byte[] payload, @Nullable Long ttlMs, @Nullable Long notBefore,
                 @Nullable RepeatedKey repeatedKey, Instant createdAt, int attempts) {

    /** The send it stands for; its payload is the encoded bytes, which a send stores as they are. */
    OutgoingMessage message() {
        EncodedPayload encoded = new EncodedPayload(payload);
        OutgoingMessage message = switch (type) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic, encoded, Duration.ofMillis(value));
            case PRIORITY -> OutgoingMessage.priority(topic, encoded, value);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic, encoded, Instant.ofEpochMilli(value));
        };
        message = message.withKey(key).withHeaders(headers);
        if (slotBasis != null) {
            message = message.withSlotBasis(slotBasis);
        }
        if (ttlMs != null) {
            message = message.withTtl(Duration.ofMillis(ttlMs));
        }
        if (notBefore != null) {
            message = message.notBefore(Instant.ofEpochMilli(notBefore));
        }
        if (repeatedKey != null) {
            message = message.withRepeatedKey(repeatedKey);
        }
        return message;
    }

    /** The type of a row's {@code type} column, which holds {@link TopicType#scriptCode()}. */
    static TopicType type(String code) {
        for (TopicType type : TopicType.values()) {
            if (type.scriptCode().equals(code)) {
                return type;
            }
        }
        throw new IllegalStateException("an outbox row of unknown type '" + code + "'");
    }
}
