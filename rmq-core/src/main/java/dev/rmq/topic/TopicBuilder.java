package dev.rmq.topic;

import dev.rmq.codec.PayloadForm;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Arrays;

import static dev.rmq.topic.TopicDefinition.DEFAULT_DEAD_CAPACITY;
import static dev.rmq.topic.TopicDefinition.DEFAULT_LATE_TOLERANCE;
import static dev.rmq.topic.TopicDefinition.DEFAULT_LEASE;
import static dev.rmq.topic.TopicDefinition.DEFAULT_MAX_RELEASES;
import static dev.rmq.topic.TopicDefinition.DEFAULT_MAX_RETRIES;

/**
 * Collects the values of a {@link TopicDefinition}; {@link #build()} checks them all. The definition reads its
 * fields, so they are package-private.
 */
public final class TopicBuilder {
    /** Null until given; {@link #build()} refuses a definition without it. */
    @Nullable String name;
    /** Null until given; {@link #build()} refuses a definition without it. */
    @Nullable TopicType type;
    int slotAmount = 16;
    Duration leaseTimeout = DEFAULT_LEASE;
    int maxRetries = DEFAULT_MAX_RETRIES;
    BackoffPolicy backoff = BackoffPolicy.DEFAULT;
    int deadCapacity = DEFAULT_DEAD_CAPACITY;
    int maxReleases = DEFAULT_MAX_RELEASES;
    Duration ttl = Duration.ZERO;
    ExpiryAction expiry = ExpiryAction.DROP;
    int maxBacklog;
    DeliveryGuarantee delivery = DeliveryGuarantee.AT_LEAST_ONCE;
    double rateLimit;
    Duration lateTolerance = DEFAULT_LATE_TOLERANCE;
    boolean fifo;
    RepeatedKey repeatedKey = RepeatedKey.REPLACE;
    TopicZones zones = TopicZones.NONE;
    PayloadForm payloadForm = PayloadForm.PLAIN;

    TopicBuilder() {
    }

    public TopicBuilder name(String name) {
        this.name = name;
        return this;
    }

    public TopicBuilder type(TopicType type) {
        this.type = type;
        return this;
    }

    /** A power of two in 1..16384; 16 by default. */
    public TopicBuilder slotAmount(int slotAmount) {
        this.slotAmount = slotAmount;
        return this;
    }

    public TopicBuilder leaseTimeout(Duration leaseTimeout) {
        this.leaseTimeout = leaseTimeout;
        return this;
    }

    public TopicBuilder maxRetries(int maxRetries) {
        this.maxRetries = maxRetries;
        return this;
    }

    public TopicBuilder backoff(BackoffPolicy backoff) {
        this.backoff = backoff;
        return this;
    }

    public TopicBuilder deadCapacity(int deadCapacity) {
        this.deadCapacity = deadCapacity;
        return this;
    }

    /** Releases a message may have before a further one sends it dead; 1,000 by default, 0 for no cap. */
    public TopicBuilder maxReleases(int maxReleases) {
        this.maxReleases = maxReleases;
        return this;
    }

    /** How long a message may wait before it is delivered; {@code Duration.ZERO} (the default) for ever. */
    public TopicBuilder ttl(Duration ttl) {
        this.ttl = ttl;
        return this;
    }

    /** What becomes of a message whose time to live ran out: {@code DROP} (the default) or {@code DEAD}. */
    public TopicBuilder expiry(ExpiryAction expiry) {
        this.expiry = expiry;
        return this;
    }

    /** The most messages that may wait, split evenly among the slots; 0 (the default) for no cap. */
    public TopicBuilder maxBacklog(int maxBacklog) {
        this.maxBacklog = maxBacklog;
        return this;
    }

    /** {@code AT_LEAST_ONCE} (the default) or {@code AT_MOST_ONCE}. */
    public TopicBuilder delivery(DeliveryGuarantee delivery) {
        this.delivery = delivery;
        return this;
    }

    /** The most deliveries per second over every consumer of the topic; 0 (the default) for no limit. */
    public TopicBuilder rateLimit(double messagesPerSecond) {
        this.rateLimit = messagesPerSecond;
        return this;
    }

    /** How far behind the Redis clock a fixed time may lie and still be taken; 10 s by default. */
    public TopicBuilder lateTolerance(Duration lateTolerance) {
        this.lateTolerance = lateTolerance;
        return this;
    }

    /** Equals consumed in the order first sent, rather than by key; off by default. */
    public TopicBuilder fifo(boolean value) {
        this.fifo = value;
        return this;
    }

    /** What a send of a key already known to its slot does; {@link RepeatedKey#REPLACE} by default. */
    public TopicBuilder repeatedKey(RepeatedKey value) {
        this.repeatedKey = value;
        return this;
    }

    /**
     * Spreads the slots over availability zones (slot {@code s} in zone {@code s mod n}), the producer of a
     * zone sending to its own zone's slots; none by default.
     */
    public TopicBuilder zones(String... names) {
        if (names == null) {
            throw new IllegalArgumentException("zones and their routing must not be null");
        }
        return zones(TopicZones.of(Arrays.asList(names), TopicZones.DEFAULT_ROUTING));
    }

    /** How the slots are spread over zones, and how producers route among them; see {@link TopicZones}. */
    public TopicBuilder zones(TopicZones value) {
        this.zones = value;
        return this;
    }

    /** The version, compression and encryption of the topic's payloads; {@link PayloadForm#PLAIN} by default. */
    public TopicBuilder payloadForm(PayloadForm value) {
        this.payloadForm = value;
        return this;
    }

    public TopicDefinition build() {
        return new TopicDefinition(this);
    }
}
