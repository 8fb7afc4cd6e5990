package dev.rmq.topic;

import dev.rmq.codec.PayloadForm;
import dev.rmq.internal.validation.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;

/**
 * An immutable, validated topic: its name, type and number of slots, the consumer settings that travel with it
 * (lease, retries, backoff, dead-queue capacity), and its job controls (time to live, backlog cap, delivery
 * guarantee, rate limit, late tolerance of fixed times, FIFO among equals, what a repeated key does). Two definitions
 * of one name must agree on type and slot amount everywhere in a cluster; with ZooKeeper, the applications running
 * at once must agree on the controls.
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
    /** Default number of releases a message may have; one more sends it dead. */
    public static final int DEFAULT_MAX_RELEASES = 1_000;
    /**
     * Default late tolerance: how far behind the Redis clock a fixed time may lie and still be taken, due at once.
     * It covers what can pass between computing a time and the send reaching Redis: clock skew between hosts, a
     * garbage-collection pause, and a Redis client retrying through a failover (several seconds by default).
     */
    public static final Duration DEFAULT_LATE_TOLERANCE = Duration.ofSeconds(10);
    /** The longest late tolerance. */
    public static final Duration MAX_LATE_TOLERANCE = Duration.ofHours(1);
    /** The highest rate limit, in messages per second. */
    public static final double MAX_RATE_LIMIT = 1_000_000;

    private final String name;
    private final TopicType type;
    private final int slotAmount;
    private final Duration leaseTimeout;
    private final int maxRetries;
    private final BackoffPolicy backoff;
    private final int deadCapacity;
    private final int maxReleases;
    private final Duration ttl;
    private final ExpiryAction expiry;
    private final int maxBacklog;
    private final DeliveryGuarantee delivery;
    private final double rateLimit;
    private final Duration lateTolerance;
    private final boolean fifo;
    private final RepeatedKey repeatedKey;
    private final TopicZones zones;
    private final PayloadForm payloadForm;
    /** Made once: senders key their per-topic counts by the definition, one look-up a message. */
    private final int hash;

    TopicDefinition(TopicBuilder b) {
        this.name = Names.check("topic name", b.name);
        this.type = TopicChecks.type(name, b.type);
        this.slotAmount = TopicChecks.slotAmount(name, b.slotAmount);
        this.leaseTimeout = Durations.requirePositive("lease timeout of topic '" + name + "'", b.leaseTimeout);
        this.maxRetries = TopicChecks.count(name, "maxRetries", b.maxRetries, MAX_RETRIES_LIMIT,
                "in 0.." + MAX_RETRIES_LIMIT);
        this.backoff = TopicChecks.given(name, "backoff", b.backoff, "must not be null");
        this.deadCapacity = TopicChecks.count(name, "deadCapacity", b.deadCapacity, Integer.MAX_VALUE,
                "0 (unbounded) or positive");
        this.maxReleases = TopicChecks.count(name, "maxReleases", b.maxReleases, MAX_RETRIES_LIMIT,
                "0 (no cap) or up to " + MAX_RETRIES_LIMIT);
        this.ttl = Durations.timeToLive("ttl of topic '" + name + "'", b.ttl);
        this.expiry = TopicChecks.given(name, "expiry", b.expiry, "must be DROP or DEAD, was null");
        this.maxBacklog = TopicChecks.count(name, "maxBacklog", b.maxBacklog, Integer.MAX_VALUE,
                "0 (no cap) or positive");
        this.delivery = TopicChecks.given(name, "delivery", b.delivery,
                "must be AT_LEAST_ONCE or AT_MOST_ONCE, was null");
        this.rateLimit = TopicChecks.rateLimit(name, b.rateLimit);
        this.lateTolerance = TopicChecks.lateTolerance(name, b.lateTolerance);
        this.fifo = b.fifo;
        this.repeatedKey = TopicChecks.given(name, "repeatedKey", b.repeatedKey,
                "must not be null; REPLACE is the default").checkFor(name, type);
        this.zones = TopicChecks.given(name, "zones", b.zones, "must not be null");
        zones.check(name, slotAmount);
        this.payloadForm = TopicChecks.given(name, "payloadForm", b.payloadForm,
                "must not be null; PayloadForm.PLAIN is the default");
        this.hash = Objects.hash(name, type, slotAmount, leaseTimeout, maxRetries, backoff, deadCapacity, controls());
    }

    /** Starts a definition; type and name are required, everything else has a default. */
    public static TopicBuilder builder(String name, TopicType type) {
        return new TopicBuilder().name(name).type(type);
    }

    public static TopicBuilder builder() {
        return new TopicBuilder();
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

    /** Releases (hand-backs without an attempt) a message may have before one more sends it dead; 0 for no cap. */
    public int maxReleases() {
        return maxReleases;
    }

    /** How long a message may wait before it is delivered; zero when messages wait for ever. A send may set its own. */
    public Duration ttl() {
        return ttl;
    }

    /** What becomes of a message whose time to live ran out. */
    public ExpiryAction expiry() {
        return expiry;
    }

    /**
     * The most messages that may wait in the topic, 0 for no cap: due, delayed, waiting for a retry, or parked
     * behind an in-flight delivery of their key; a message in flight does not count. It is enforced per slot, each
     * slot holding {@link #maxBacklogPerSlot()}: the count and the add are then one atomic script on one slot's keys,
     * which Redis Cluster allows, where a topic-wide count would need a call across slots.
     */
    public int maxBacklog() {
        return maxBacklog;
    }

    /** The cap of one slot: {@code maxBacklog / slotAmount}, rounded up; 0 for no cap. */
    public int maxBacklogPerSlot() {
        return maxBacklog == 0 ? 0 : (maxBacklog + slotAmount - 1) / slotAmount;
    }

    public DeliveryGuarantee delivery() {
        return delivery;
    }

    /** The most deliveries per second, summed over every consumer of the topic; 0 for no limit. */
    public double rateLimit() {
        return rateLimit;
    }

    /**
     * For fixed-time topics, how far behind the Redis clock a fixed time may lie and still be taken, delivered at
     * once and reported late; a time further behind is refused.
     */
    public Duration lateTolerance() {
        return lateTolerance;
    }

    /**
     * Whether equals (messages of one priority, or due in one millisecond) are consumed in the order first sent
     * to their slot; otherwise they go by key. It costs each send a little Redis CPU (see the README).
     */
    public boolean fifo() {
        return fifo;
    }

    /** What a send of a key already known to its slot does, unless the send says otherwise; REPLACE by default. */
    public RepeatedKey repeatedKey() {
        return repeatedKey;
    }

    /** Refuses a slot index outside this topic. */
    public int requireSlot(int slot) {
        return TopicChecks.slot(name, slotAmount, slot);
    }

    /** The slot of a message with this slot basis, sent from no zone. */
    public int slotOf(String slotBasis) {
        return SlotRouter.slotOf(slotBasis, slotAmount);
    }

    /** The slot of a message with this slot basis sent from {@code senderZone} (null for none); see {@link TopicZones}. */
    public int slotOf(String slotBasis, @Nullable String senderZone) {
        return zones.slotOf(slotBasis, slotAmount, senderZone);
    }

    /** How the slots are spread over availability zones; {@link TopicZones#NONE} by default. */
    public TopicZones zones() {
        return zones;
    }

    /**
     * How the topic's payloads travel: their version, compression and encryption. Each application may change it on
     * its own, since every read follows the headers of the message it reads.
     */
    public PayloadForm payloadForm() {
        return payloadForm;
    }

    /** A builder holding this definition's values. */
    public TopicBuilder toBuilder() {
        return new TopicBuilder().name(name).type(type).slotAmount(slotAmount).leaseTimeout(leaseTimeout)
                .maxRetries(maxRetries).backoff(backoff).deadCapacity(deadCapacity).maxReleases(maxReleases).ttl(ttl)
                .expiry(expiry).maxBacklog(maxBacklog).delivery(delivery).rateLimit(rateLimit).lateTolerance(lateTolerance)
                .fifo(fifo).repeatedKey(repeatedKey).zones(zones).payloadForm(payloadForm);
    }

    /**
     * The job controls as text, {@code name=value} in a fixed order: what the applications running a topic
     * at once must agree on.
     */
    public String controls() {
        return "ttl=" + ttl + ",expiry=" + expiry + ",maxBacklog=" + maxBacklog + ",delivery=" + delivery
                + ",rateLimit=" + rateLimit + ",lateTolerance=" + lateTolerance + ",fifo=" + fifo
                + (zones.isEmpty() && zones.routing() == TopicZones.DEFAULT_ROUTING ? "" : ",zones=" + zones)
                + (maxReleases == DEFAULT_MAX_RELEASES ? "" : ",maxReleases=" + maxReleases)
                + (repeatedKey.equals(RepeatedKey.REPLACE) ? "" : ",repeatedKey=" + repeatedKey);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicDefinition t && name.equals(t.name) && type == t.type && slotAmount == t.slotAmount
                && leaseTimeout.equals(t.leaseTimeout) && maxRetries == t.maxRetries && backoff.equals(t.backoff)
                && deadCapacity == t.deadCapacity && controls().equals(t.controls());
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "Topic[" + name + ", " + type + ", slots=" + slotAmount + ", lease=" + leaseTimeout
                + ", maxRetries=" + maxRetries + ", backoff=" + backoff + ", deadCapacity=" + deadCapacity + ", "
                + controls() + (payloadForm.isPlain() ? "" : ", payload=" + payloadForm) + "]";
    }
}
