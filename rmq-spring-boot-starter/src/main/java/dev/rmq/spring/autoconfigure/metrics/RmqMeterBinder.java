package dev.rmq.spring.autoconfigure.metrics;

import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.Locale;

/**
 * Gauges of each topic, tagged {@code topic} and {@code type}:
 * <ul>
 * <li>{@code rmq.backlog}: messages waiting (including priority messages waiting out a backoff);</li>
 * <li>{@code rmq.inflight}: messages handed to consumers and not yet acknowledged;</li>
 * <li>{@code rmq.dead.size}: messages in the dead queue (the counter {@code rmq.dead} counts arrivals);</li>
 * <li>{@code rmq.slots.owned}: slots that this instance's listener containers hold now.</li>
 * </ul>
 * The first three are read from Redis through a short-lived cache; a failed reading shows as NaN.
 */
public final class RmqMeterBinder implements MeterBinder {

    private final RmqClient client;
    private final RmqListenerEndpointRegistry registry;
    private final TopicSizes sizes;

    public RmqMeterBinder(RmqClient client, RmqListenerEndpointRegistry registry, Duration sizeCacheTtl) {
        this.client = client;
        this.registry = registry;
        this.sizes = new TopicSizes(client.inspector(), sizeCacheTtl);
    }

    @Override
    public void bindTo(MeterRegistry meters) {
        for (TopicDefinition topic : client.topics().all()) {
            String name = topic.name();
            Tags tags = Tags.of("topic", name, "type", topic.type().name().toLowerCase(Locale.ROOT));
            Gauge.builder("rmq.backlog", sizes, s -> s.backlog(name)).tags(tags).strongReference(true)
                    .description("Messages waiting to be consumed").baseUnit("messages").register(meters);
            Gauge.builder("rmq.inflight", sizes, s -> s.inFlight(name)).tags(tags).strongReference(true)
                    .description("Messages handed to consumers and not yet acknowledged").baseUnit("messages")
                    .register(meters);
            Gauge.builder("rmq.dead.size", sizes, s -> s.dead(name)).tags(tags).strongReference(true)
                    .description("Messages in the dead queue").baseUnit("messages").register(meters);
            if (topic.type() != TopicType.PRIORITY) {
                // what an autoscaler scales on: how far consumers are behind the due times
                Gauge.builder("rmq.oldest.due.age", sizes, s -> s.oldestDueAge(name)).tags(tags)
                        .strongReference(true).baseUnit("seconds")
                        .description("How long the oldest due message has waited since its due time; 0 when none is"
                                + " due").register(meters);
            }
            Gauge.builder("rmq.paused", sizes, s -> s.paused(name)).tags(tags).strongReference(true)
                    .description("1 while the topic is paused in every slot, 0 otherwise").register(meters);
            Gauge.builder("rmq.slots.owned", registry, r -> ownedSlots(r, name)).tags(tags).strongReference(true)
                    .description("Slots held by this instance's listener containers").baseUnit("slots")
                    .register(meters);
        }
    }

    private static double ownedSlots(RmqListenerEndpointRegistry registry, String topic) {
        int owned = 0;
        for (RmqConsumerContainer<?> container : registry.getListenerContainers(topic)) {
            owned += container.ownedSlots().size();
        }
        return owned;
    }
}
