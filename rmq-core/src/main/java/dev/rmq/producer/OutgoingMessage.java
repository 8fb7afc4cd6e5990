package dev.rmq.producer;

import dev.rmq.internal.validation.Durations;
import dev.rmq.internal.validation.MessageArguments;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message to send, immutable. Start with the factory for the topic's type, then optionally give an
 * explicit merge key (by default it is derived from the payload), a slot basis (by default the key)
 * and headers. Arguments are checked here, so bad input fails before anything reaches Redis.
 */
public final class OutgoingMessage {

    /** Priorities up to this value are reserved; a priority must be above it. */
    public static final long RESERVED_PRIORITY_MAX = MessageArguments.RESERVED_PRIORITY_MAX;
    /** The largest priority, the largest integer a Redis score holds exactly. */
    public static final long MAX_PRIORITY = MessageArguments.MAX_PRIORITY;
    /** The longest explicit key or slot basis, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = MessageArguments.MAX_KEY_BYTES;

    private final String topic;
    private final TopicType type;
    private final Object payload;
    private final long value;
    private final String key;
    private final String slotBasis;
    private final Map<String, String> headers;

    private OutgoingMessage(String topic, TopicType type, Object payload, long value, String key, String slotBasis,
                            Map<String, String> headers) {
        this.topic = topic;
        this.type = type;
        this.payload = payload;
        this.value = value;
        this.key = key;
        this.slotBasis = slotBasis;
        this.headers = headers;
    }

    /** A range-merge message: due {@code timeRange} after it first arrives; duplicates until then merge into it. */
    public static OutgoingMessage rangeMerge(String topic, Object payload, Duration timeRange) {
        long ms = Durations.requirePositive("timeRange", timeRange).toMillis();
        return create(topic, TopicType.RANGE_MERGE, payload, ms);
    }

    /** A priority message; higher is consumed first. A duplicate takes the latest priority. */
    public static OutgoingMessage priority(String topic, Object payload, long priority) {
        return create(topic, TopicType.PRIORITY, payload, MessageArguments.checkPriority(priority));
    }

    /**
     * A message due at {@code fixedTime}, which must be after the Redis server's clock when it arrives.
     * A duplicate takes the latest time.
     */
    public static OutgoingMessage fixedTime(String topic, Object payload, Instant fixedTime) {
        return create(topic, TopicType.FIXED_TIME, payload, MessageArguments.checkTime("fixedTime", fixedTime));
    }

    private static OutgoingMessage create(String topic, TopicType type, Object payload, long value) {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be null or empty");
        }
        if (payload == null) {
            throw new IllegalArgumentException("payload of a message to topic '" + topic + "' must not be null");
        }
        return new OutgoingMessage(topic, type, payload, value, null, null, Map.of());
    }

    /** The same message with an explicit merge key instead of one derived from the payload. */
    public OutgoingMessage withKey(String key) {
        return new OutgoingMessage(topic, type, payload, value, MessageArguments.checkKey("key", key), slotBasis, headers);
    }

    /** The same message routed by {@code slotBasis}: messages sharing one are consumed one after another. */
    public OutgoingMessage withSlotBasis(String slotBasis) {
        return new OutgoingMessage(topic, type, payload, value, key, MessageArguments.checkKey("slotBasis", slotBasis), headers);
    }

    /** The same message with one more header; a header of the same name is replaced. */
    public OutgoingMessage withHeader(String name, String headerValue) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("header name must not be null or empty");
        }
        if (headerValue == null) {
            throw new IllegalArgumentException("value of header '" + name + "' must not be null");
        }
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(name, headerValue);
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, Collections.unmodifiableMap(copy));
    }

    /** The same message with these headers added. */
    public OutgoingMessage withHeaders(Map<String, String> more) {
        if (more == null) {
            throw new IllegalArgumentException("headers must not be null");
        }
        OutgoingMessage result = this;
        for (Map.Entry<String, String> header : more.entrySet()) {
            result = result.withHeader(header.getKey(), header.getValue());
        }
        return result;
    }

    public String topic() {
        return topic;
    }

    public TopicType type() {
        return type;
    }

    public Object payload() {
        return payload;
    }

    /** The type's argument: time range ms, priority, or fixed time epoch ms. */
    public long value() {
        return value;
    }

    /** The explicit key, or null when it is derived from the payload. */
    public String key() {
        return key;
    }

    /** The explicit slot basis, or null when it is the key. */
    public String slotBasis() {
        return slotBasis;
    }

    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String toString() {
        return "OutgoingMessage[" + type + " to " + topic + ", value=" + value + ", key=" + key + ", slotBasis=" + slotBasis
                + ", headers=" + headers.keySet() + "]";
    }
}
