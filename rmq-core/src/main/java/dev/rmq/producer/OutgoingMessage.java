package dev.rmq.producer;

import dev.rmq.internal.validation.Durations;
import dev.rmq.internal.validation.MessageArguments;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A message to send, immutable. Start with the factory for the topic's type, then optionally give an
 * explicit merge key (by default it is derived from the payload), a slot basis (by default the key),
 * headers, a time to live (by default the topic's), and for a priority message a not-before time. Arguments
 * are checked here, so bad input fails before anything reaches Redis.
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
    private final @Nullable String key;
    private final @Nullable String slotBasis;
    private final Map<String, String> headers;
    private final @Nullable Duration ttl;
    /** For a priority message: a positive epoch ms (not before), a negative delay in ms, or 0 for at once. */
    private final long notBefore;
    private final @Nullable RepeatedKey repeatedKey;

    private OutgoingMessage(String topic, TopicType type, Object payload, long value, @Nullable String key,
                            @Nullable String slotBasis, Map<String, String> headers, @Nullable Duration ttl,
                            long notBefore, @Nullable RepeatedKey repeatedKey) {
        this.topic = topic;
        this.type = type;
        this.payload = payload;
        this.value = value;
        this.key = key;
        this.slotBasis = slotBasis;
        this.headers = headers;
        this.ttl = ttl;
        this.notBefore = notBefore;
        this.repeatedKey = repeatedKey;
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
     * A message due at {@code fixedTime}. A time that the Redis clock has already passed when the message arrives,
     * by no more than the topic's late tolerance, is due at once and its receipt says how late it was; one further
     * behind is refused. A duplicate takes the latest time.
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
        return new OutgoingMessage(topic, type, payload, value, null, null, Map.of(), null, 0, null);
    }

    /**
     * The same message with another payload. A key derived from the payload is derived from the new one: give the
     * old key ({@link #withKey}) to keep it.
     */
    public OutgoingMessage withPayload(Object payload) {
        if (payload == null) {
            throw new IllegalArgumentException("payload of a message to topic '" + topic + "' must not be null");
        }
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, headers, ttl, notBefore, repeatedKey);
    }

    /** The same message with an explicit merge key instead of one derived from the payload. */
    public OutgoingMessage withKey(String key) {
        return new OutgoingMessage(topic, type, payload, value, MessageArguments.checkKey("key", key), slotBasis, headers,
                ttl, notBefore, repeatedKey);
    }

    /** The same message routed by {@code slotBasis}: messages sharing one are consumed one after another. */
    public OutgoingMessage withSlotBasis(String slotBasis) {
        return new OutgoingMessage(topic, type, payload, value, key, MessageArguments.checkKey("slotBasis", slotBasis),
                headers, ttl, notBefore, repeatedKey);
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
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, Collections.unmodifiableMap(copy), ttl,
                notBefore, repeatedKey);
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

    /**
     * The same message with its own time to live: if it still waits (or waits for a retry) when the time runs out,
     * by the Redis clock, it never reaches a handler. A delivery in progress is not cut short. Overrides the
     * topic's; {@code Duration.ZERO} means no time to live even on a topic that has one.
     */
    public OutgoingMessage withTtl(Duration timeToLive) {
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, headers,
                Durations.timeToLive("ttl of a message to topic '" + topic + "'", timeToLive), notBefore, repeatedKey);
    }

    /**
     * The same priority message, invisible until {@code time} (by the Redis clock); after it, it competes by
     * priority. A duplicate takes the latest priority and the latest not-before time.
     */
    public OutgoingMessage notBefore(Instant time) {
        if (type != TopicType.PRIORITY) {
            throw new IllegalArgumentException("notBefore is for priority messages; a " + type + " message to topic '"
                    + topic + "' has its due time from " + (type == TopicType.FIXED_TIME ? "its fixed time" : "its time range"));
        }
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, headers, ttl,
                MessageArguments.checkTime("notBefore", time), repeatedKey);
    }

    /**
     * The same priority message, invisible for {@code delay} after it reaches Redis; after that, it competes by
     * priority. Unlike {@link #notBefore(Instant)}, the delay is counted on the Redis clock.
     */
    public OutgoingMessage withDelay(Duration delay) {
        if (type != TopicType.PRIORITY) {
            throw new IllegalArgumentException("withDelay is for priority messages; a " + type + " message to topic '"
                    + topic + "' has its due time from " + (type == TopicType.FIXED_TIME ? "its fixed time" : "its time range"));
        }
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, headers, ttl,
                -Durations.requirePositive("delay", delay).toMillis(), repeatedKey);
    }

    /**
     * The same message with its own rule for a key already known to its slot, in place of the topic's (see
     * {@link RepeatedKey}). DEBOUNCE is refused for a priority message.
     */
    public OutgoingMessage withRepeatedKey(RepeatedKey rule) {
        if (rule == null) {
            throw new IllegalArgumentException("the repeated-key rule of a message to topic '" + topic
                    + "' must not be null; leave it unset for the topic's");
        }
        return new OutgoingMessage(topic, type, payload, value, key, slotBasis, headers, ttl, notBefore,
                rule.checkFor(topic, type));
    }

    /** The rule set by {@link #withRepeatedKey}, or null for the topic's. */
    public @Nullable RepeatedKey repeatedKey() {
        return repeatedKey;
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
    public @Nullable String key() {
        return key;
    }

    /** The explicit slot basis, or null when it is the key. */
    public @Nullable String slotBasis() {
        return slotBasis;
    }

    public Map<String, String> headers() {
        return headers;
    }

    /** Its own time to live, or null when the topic's applies. */
    public @Nullable Duration ttl() {
        return ttl;
    }

    /** The time given by {@link #notBefore(Instant)}, if any. */
    public Optional<Instant> notBeforeTime() {
        return notBefore > 0 ? Optional.of(Instant.ofEpochMilli(notBefore)) : Optional.empty();
    }

    /** The delay given by {@link #withDelay(Duration)}, if any. */
    public Optional<Duration> delay() {
        return notBefore < 0 ? Optional.of(Duration.ofMillis(-notBefore)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "OutgoingMessage[" + type + " to " + topic + ", value=" + value + ", key=" + key + ", slotBasis=" + slotBasis
                + ", headers=" + headers.keySet() + (ttl == null ? "" : ", ttl=" + ttl)
                + (notBefore > 0 ? ", notBefore=" + Instant.ofEpochMilli(notBefore) : "")
                + (notBefore < 0 ? ", delay=" + Duration.ofMillis(-notBefore) : "")
                + (repeatedKey == null ? "" : ", repeatedKey=" + repeatedKey) + "]";
    }
}
