package dev.rmq;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.internal.consumer.ConsumerContainer;
import dev.rmq.internal.consumer.WakeSubscription;
import dev.rmq.internal.consumer.WorkerFactory;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Collects a container's settings; {@link #build()} checks them. Obtained from
 * {@link RmqClient#container(String, Type, RmqHandler)}.
 *
 * @param <T> the payload type
 */
public final class ContainerBuilder<T> {

    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    private final ClientParts parts;
    private final TopicDefinition topic;
    private final Type payloadType;
    private final RmqHandler<T> handler;
    private final String defaultId;
    private final Consumer<RmqConsumerContainer<?>> built;
    private ConsumerSettings settings = ConsumerSettings.DEFAULTS;
    private Supplier<? extends SlotAssignment> assignment = LocalSlotAssignment::new;
    private RmqErrorHandler errorHandler = RmqErrorHandler.DEFAULT;
    private String id;

    ContainerBuilder(ClientParts parts, TopicDefinition topic, Type payloadType, RmqHandler<T> handler, String defaultId,
                     Consumer<RmqConsumerContainer<?>> built) {
        this.parts = parts;
        this.topic = topic;
        this.payloadType = payloadType;
        this.handler = handler;
        this.defaultId = defaultId;
        this.built = built;
    }

    /** Its id, unique among this client's containers and pullers; {@code <topic>-N} by default. */
    public ContainerBuilder<T> id(String value) {
        this.id = value;
        return this;
    }

    public ContainerBuilder<T> settings(ConsumerSettings value) {
        if (value == null) {
            throw new IllegalArgumentException("settings must not be null");
        }
        this.settings = value;
        return this;
    }

    public ContainerBuilder<T> concurrency(int value) {
        return settings(settings.withConcurrency(value));
    }

    public ContainerBuilder<T> batchSize(int value) {
        return settings(settings.withBatchSize(value));
    }

    /**
     * How slots are handed to workers; local (no coordination) by default. The supplier is asked for a
     * new assignment each time the container starts, e.g. {@code coordinator::newAssignment}.
     */
    public ContainerBuilder<T> assignment(Supplier<? extends SlotAssignment> value) {
        if (value == null) {
            throw new IllegalArgumentException("assignment must not be null");
        }
        this.assignment = value;
        return this;
    }

    /**
     * What a handler's exception does to its message: retry after the backoff, retry at once, or the dead queue;
     * {@link RmqErrorHandler#DEFAULT} (retry, except a payload that cannot be read) by default.
     */
    public ContainerBuilder<T> errorHandler(RmqErrorHandler value) {
        if (value == null) {
            throw new IllegalArgumentException("errorHandler must not be null; RmqErrorHandler.DEFAULT retries");
        }
        this.errorHandler = value;
        return this;
    }

    public RmqConsumerContainer<T> build() {
        String containerId = id != null ? id : defaultId;
        if (payloadType == null) {
            throw new IllegalArgumentException("payload type of container '" + containerId + "' must not be null");
        }
        if (handler == null) {
            throw new IllegalArgumentException("handler of container '" + containerId + "' must not be null");
        }
        RmqHandler<T> observed = parts.observations() == null ? handler : parts.observations().process(handler);
        WorkerFactory<T> workers = new WorkerFactory<>(topic, settings, parts.keys(), parts.scripts(), observed,
                parts.codec(), payloadType, parts.metrics(), parts.events(),
                parts.consumerOutages("container " + containerId, topic.name(),
                        "its workers poll again with a back-off until it does", log),
                parts.zone(), errorHandler);
        WakeSubscription wakes = new WakeSubscription(parts.redisson(), parts.keys().wakeChannel(topic.name()));
        ConsumerContainer<T> container = new ConsumerContainer<>(containerId, topic, settings, workers, wakes, assignment);
        built.accept(container);
        return container;
    }
}
