package dev.rmq.internal.consumer;

import dev.rmq.exceptions.RmqException;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** One delivery of a message to a handler, with the lease token its acknowledgement must quote. */
public class Delivery<T> implements RmqMessage<T> {

    /** Extends the lease of one delivery; returns the new token or 0 when the lease is lost. */
    public interface LeaseExtender {
        long extend(Delivery<?> delivery, Duration duration);
    }

    private final String topic;
    private final TopicType type;
    private final int slot;
    private final String key;
    private final Envelope envelope;
    /** The envelope's bytes as the poll returned them, for handing an at-most-once message back unstarted. */
    private final byte[] rawEnvelope;
    private final T payload;
    private final LeaseExtender extender;
    private volatile long token;

    public Delivery(String topic, TopicType type, int slot, String key, Envelope envelope, byte[] rawEnvelope, T payload,
             long token, LeaseExtender extender) {
        this.topic = topic;
        this.type = type;
        this.slot = slot;
        this.key = key;
        this.envelope = envelope;
        this.rawEnvelope = rawEnvelope;
        this.payload = payload;
        this.token = token;
        this.extender = extender;
    }

    public final long token() {
        return token;
    }

    public final byte[] rawEnvelope() {
        return rawEnvelope;
    }

    public final void token(long newToken) {
        this.token = newToken;
    }

    public final boolean leaseLost() {
        return token == 0;
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public int attempt() {
        return envelope.attempts();
    }

    @Override
    public Optional<Instant> dueTime() {
        return type.isTimed() ? Optional.of(Instant.ofEpochMilli((long) envelope.score())) : Optional.empty();
    }

    @Override
    public OptionalLong priority() {
        return type.isTimed() ? OptionalLong.empty() : OptionalLong.of((long) envelope.score());
    }

    @Override
    public String lastError() {
        return envelope.lastError();
    }

    @Override
    public Map<String, String> headers() {
        return envelope.headers();
    }

    @Override
    public T payload() {
        return payload;
    }

    @Override
    public Instant leaseDeadline() {
        // the token is the deadline in microseconds; like every time rmq shows, the deadline is to the millisecond
        return Instant.ofEpochMilli(token / 1_000);
    }

    @Override
    public void extendLease(Duration duration) {
        if (duration == null || duration.toMillis() < 1) {
            throw new IllegalArgumentException("lease extension must be at least 1 ms, was " + duration);
        }
        if (leaseLost() || extender.extend(this, duration) == 0) {
            throw new RmqException("the lease of message '" + key + "' in " + topic + "_" + slot
                    + " was already lost; it may be delivered again", null);
        }
    }

    @Override
    public String toString() {
        return "RmqMessage[" + topic + "_" + slot + ", key=" + key + ", attempt=" + attempt() + "]";
    }
}
