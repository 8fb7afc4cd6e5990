package dev.rmq.server.api.topic;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.util.List;

/**
 * A configured topic: its definition, with durations as ISO-8601 text, and how many of its slots this server's
 * puller holds. A control that is not set (time to live, backlog cap, rate limit, zones) is absent.
 *
 * @param pulledSlots the slots this server pulls from; with ZooKeeper, those assigned to it among every consumer of
 *                    the topic
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicView(String name, String type, int slotAmount, String leaseTimeout, int maxRetries,
                        Backoff backoff, int deadCapacity, String ttl, String expiry, Integer maxBacklog,
                        String delivery, Double rateLimit, String lateTolerance, boolean fifo, List<String> zones,
                        String zoneRouting, int pulledSlots) {

    /** Retry delays: {@code initial × multiplier^(attempt-1)}, capped at {@code max}, less up to {@code jitter}. */
    public record Backoff(String initial, double multiplier, String max, double jitter) {
    }

    static TopicView of(TopicDefinition topic, int pulledSlots) {
        BackoffPolicy backoff = topic.backoff();
        boolean zoned = !topic.zones().isEmpty();
        return new TopicView(topic.name(), topic.type().name(), topic.slotAmount(), topic.leaseTimeout().toString(),
                topic.maxRetries(), new Backoff(backoff.initial().toString(), backoff.multiplier(),
                backoff.max().toString(), backoff.jitter()), topic.deadCapacity(),
                topic.ttl().isZero() ? null : topic.ttl().toString(), topic.expiry().name(),
                topic.maxBacklog() == 0 ? null : topic.maxBacklog(), topic.delivery().name(),
                topic.rateLimit() == 0 ? null : topic.rateLimit(),
                topic.type() == TopicType.FIXED_TIME ? topic.lateTolerance().toString() : null, topic.fifo(),
                zoned ? topic.zones().names() : null, zoned ? topic.zones().routing().name() : null, pulledSlots);
    }
}
