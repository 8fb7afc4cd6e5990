package dev.rmq.topic;

import dev.rmq.codec.PayloadForm;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * A topic as every view of it shows it (the actuator endpoint, rmq-server's API): its definition, with durations as
 * ISO-8601 text. A control that is not set (time to live, backlog cap, rate limit, late tolerance of a topic that is
 * not FIXED_TIME, zones) is null, and left out of JSON.
 *
 * @param name         the topic's name
 * @param type         {@code RANGE_MERGE}, {@code PRIORITY} or {@code FIXED_TIME}
 * @param slotAmount   its number of slots
 * @param leaseTimeout how long a delivery may run before it is recovered as failed
 * @param maxRetries   retries after the first attempt before the dead queue
 * @param backoff      the wait before each retry
 * @param deadCapacity dead messages kept per slot, 0 for all
 * @param maxReleases  releases a message may have before a further one sends it dead, 0 for no cap
 * @param ttl          how long a message may wait before it is delivered; null for ever
 * @param expiry       what a message whose time to live ran out becomes: {@code DROP} or {@code DEAD}
 * @param maxBacklog   the most messages that may wait; null for no cap
 * @param delivery     {@code AT_LEAST_ONCE} or {@code AT_MOST_ONCE}
 * @param rateLimit    the most deliveries per second; null for no limit
 * @param lateTolerance how far in the past a fixed time may be and still be taken; null unless FIXED_TIME
 * @param fifo         whether equals are consumed in the order first sent
 * @param repeatedKey  what a send of a key already known to its slot does: {@code REPLACE}, {@code KEEP_FIRST},
 *                     {@code DEBOUNCE} or {@code THROTTLE}
 * @param throttleWindow with {@code THROTTLE}, how long a key accepted stays refused; null otherwise
 * @param zones        the availability zones its slots are spread over; null for none
 * @param zoneRouting  with zones, where a producer sends: {@code SENDER_ZONE} or {@code BASIS}; null without zones
 * @param payload      how its payloads travel; null when they are plain
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicDescription(String name, String type, int slotAmount, String leaseTimeout, int maxRetries,
                               Backoff backoff, int deadCapacity, int maxReleases, @Nullable String ttl, String expiry,
                               @Nullable Integer maxBacklog, String delivery, @Nullable Double rateLimit,
                               @Nullable String lateTolerance, boolean fifo, String repeatedKey,
                               @Nullable String throttleWindow, @Nullable List<String> zones,
                               @Nullable String zoneRouting, @Nullable Payload payload) {

    /** Retry delays: {@code initial × multiplier^(attempt-1)}, capped at {@code max}, less up to {@code jitter}. */
    public record Backoff(String initial, double multiplier, String max, double jitter) {
    }

    /**
     * How a topic's payloads travel: their current version, the compression of those of at least
     * {@code compressAbove} bytes (null for none), and whether they are encrypted.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Payload(int version, @Nullable String compression, @Nullable Integer compressAbove,
                          boolean encrypted) {

        static @Nullable Payload of(PayloadForm form) {
            if (form.isPlain()) {
                return null;
            }
            return new Payload(form.version(), form.compresses() ? form.compression().code() : null,
                    form.compresses() ? form.compressAbove() : null, form.encrypted());
        }
    }

    /** The description of {@code topic}. */
    public static TopicDescription of(TopicDefinition topic) {
        BackoffPolicy backoff = topic.backoff();
        boolean zoned = !topic.zones().isEmpty();
        return new TopicDescription(topic.name(), topic.type().name(), topic.slotAmount(),
                topic.leaseTimeout().toString(), topic.maxRetries(), new Backoff(backoff.initial().toString(),
                backoff.multiplier(), backoff.max().toString(), backoff.jitter()), topic.deadCapacity(), topic.maxReleases(),
                topic.ttl().isZero() ? null : topic.ttl().toString(), topic.expiry().name(),
                topic.maxBacklog() == 0 ? null : topic.maxBacklog(), topic.delivery().name(),
                topic.rateLimit() == 0 ? null : topic.rateLimit(),
                topic.type() == TopicType.FIXED_TIME ? topic.lateTolerance().toString() : null, topic.fifo(),
                topic.repeatedKey().kind().name(),
                topic.repeatedKey().window().isZero() ? null : topic.repeatedKey().window().toString(),
                zoned ? topic.zones().names() : null, zoned ? topic.zones().routing().name() : null,
                Payload.of(topic.payloadForm()));
    }
}
