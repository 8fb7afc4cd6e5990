package dev.rmq.topic;

import dev.rmq.internal.validation.Durations;

import java.time.Duration;
import java.util.Objects;

/**
 * An immutable, validated topic: its name, type and number of slots, and the consumer settings that
 * travel with it (lease, retries, backoff, dead-queue capacity). Two definitions of one name must agree
 * on type and slot amount everywhere in a cluster.
 */
public final class TopicDefinition {

    /** The most slots a topic may have: one per Redis Cluster hash slot. */
    public static final int MAX_SLOTS = 16384;
    /** Default lease: how long a consumer may hold a message before it is recovered as failed. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default number of retries after the first attempt. */
    public static final int DEFAULT_MAX_RETRIES = 16;
    /** The most retries a topic may allow (the attempt count is a 16-bit number in Redis). */
    public static final int MAX_RETRIES_LIMIT = 65_000;
    /** Default number of dead messages kept per slot; the oldest are dropped beyond it. */
    public static final int DEFAULT_DEAD_CAPACITY = 100_000;

    private final String name;
    private final TopicType type;
    private final int slotAmount;
    private final Duration leaseTimeout;
    private final int maxRetries;
    private final BackoffPolicy backoff;
    private final int deadCapacity;

    private TopicDefinition(Builder b) {
        this.name = Names.check("topic name", b.name);
        if (b.type == null) {
            throw new IllegalArgumentException("topic '" + name + "' needs a type: RANGE_MERGE, PRIORITY or FIXED_TIME");
        }
        this.type = b.type;
        this.slotAmount = checkSlotAmount(name, b.slotAmount);
        this.leaseTimeout = Durations.requirePositive("lease timeout of topic '" + name + "'", b.leaseTimeout);
        if (b.maxRetries < 0 || b.maxRetries > MAX_RETRIES_LIMIT) {
            throw new IllegalArgumentException("maxRetries of topic '" + name + "' must be in 0.." + MAX_RETRIES_LIMIT
                    + ", was " + b.maxRetries);
        }
        this.maxRetries = b.maxRetries;
        this.backoff = Objects.requireNonNull(b.backoff, "backoff of topic '" + name + "' must not be null");
        if (b.deadCapacity < 0) {
            throw new IllegalArgumentException("deadCapacity of topic '" + name
                    + "' must be 0 (unbounded) or positive, was " + b.deadCapacity);
        }
        this.deadCapacity = b.deadCapacity;
    }

    private static int checkSlotAmount(String name, int slotAmount) {
        if (slotAmount < 1 || slotAmount > MAX_SLOTS || Integer.bitCount(slotAmount) != 1) {
            throw new IllegalArgumentException("slotAmount of topic '" + name + "' must be a power of two in 1.."
                    + MAX_SLOTS + " (1, 2, 4, 8, ...), was " + slotAmount);
        }
        return slotAmount;
    }

    /** Starts a definition; type and name are required, everything else has a default. */
    public static Builder builder(String name, TopicType type) {
        return new Builder().name(name).type(type);
    }

    public static Builder builder() {
        return new Builder();
    }

    public String name() {
        return name;
    }

    public TopicType type() {
        return type;
    }

    public int slotAmount() {
        return slotAmount;
    }

    public Duration leaseTimeout() {
        return leaseTimeout;
    }

    public int maxRetries() {
        return maxRetries;
    }

    public BackoffPolicy backoff() {
        return backoff;
    }

    /** Dead messages kept per slot, the oldest dropped beyond it; 0 keeps all. */
    public int deadCapacity() {
        return deadCapacity;
    }

    /** Refuses a slot index outside this topic. */
    public int requireSlot(int slot) {
        if (slot < 0 || slot >= slotAmount) {
            throw new IllegalArgumentException("slot of topic '" + name + "' must be in 0.." + (slotAmount - 1)
                    + ", was " + slot);
        }
        return slot;
    }

    /** The slot of a message with this slot basis. */
    public int slotOf(String slotBasis) {
        return SlotRouter.slotOf(slotBasis, slotAmount);
    }

    /** A builder holding this definition's values. */
    public Builder toBuilder() {
        return new Builder().name(name).type(type).slotAmount(slotAmount).leaseTimeout(leaseTimeout)
                .maxRetries(maxRetries).backoff(backoff).deadCapacity(deadCapacity);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicDefinition t && name.equals(t.name) && type == t.type && slotAmount == t.slotAmount
                && leaseTimeout.equals(t.leaseTimeout) && maxRetries == t.maxRetries && backoff.equals(t.backoff)
                && deadCapacity == t.deadCapacity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, slotAmount, leaseTimeout, maxRetries, backoff, deadCapacity);
    }

    @Override
    public String toString() {
        return "Topic[" + name + ", " + type + ", slots=" + slotAmount + ", lease=" + leaseTimeout
                + ", maxRetries=" + maxRetries + ", backoff=" + backoff + ", deadCapacity=" + deadCapacity + "]";
    }

    /** Collects the values of a definition; {@link #build()} checks them all. */
    public static final class Builder {
        private String name;
        private TopicType type;
        private int slotAmount = 16;
        private Duration leaseTimeout = DEFAULT_LEASE;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private BackoffPolicy backoff = BackoffPolicy.DEFAULT;
        private int deadCapacity = DEFAULT_DEAD_CAPACITY;

        private Builder() {
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder type(TopicType type) {
            this.type = type;
            return this;
        }

        /** A power of two in 1..16384; 16 by default. */
        public Builder slotAmount(int slotAmount) {
            this.slotAmount = slotAmount;
            return this;
        }

        public Builder leaseTimeout(Duration leaseTimeout) {
            this.leaseTimeout = leaseTimeout;
            return this;
        }

        public Builder maxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
            return this;
        }

        public Builder backoff(BackoffPolicy backoff) {
            this.backoff = backoff;
            return this;
        }

        public Builder deadCapacity(int deadCapacity) {
            this.deadCapacity = deadCapacity;
            return this;
        }

        public TopicDefinition build() {
            return new TopicDefinition(this);
        }
    }
}
