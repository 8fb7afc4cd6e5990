package dev.rmq;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqBatchHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.internal.consumer.ConsumerContainer;
import dev.rmq.internal.consumer.Handlers;
import dev.rmq.internal.slot.WakeSubscription;
import dev.rmq.internal.consumer.WorkerFactory;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Collects a container's settings; {@link #build()} checks them. Obtained from
 * {@link RmqClient#container(String, Type)} or {@link RmqClient#container(String, Type, RmqHandler)}.
 *
 * @param <T> the payload type
 */
public final class ContainerBuilder<T> {

    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    private final ClientParts parts;
    private final TopicDefinition topic;
    private final Type payloadType;
    /** Null until a handler is given. */
    private @Nullable Handlers<T> handlers;
    /** What the handler is, for messages about it: "handler", "asyncHandler" or "batchHandler"; null before it. */
    private @Nullable String shape;
    /** Null for a platform thread of its own per worker. */
    private @Nullable Executor executor;
    private final String defaultId;
    private final Consumer<RmqConsumerContainer<?>> built;
    private ConsumerSettings settings = ConsumerSettings.DEFAULTS;
    private Supplier<? extends SlotAssignment> assignment = LocalSlotAssignment::new;
    private RmqErrorHandler errorHandler = RmqErrorHandler.DEFAULT;
    /** Null for the default id. */
    private @Nullable String id;

    ContainerBuilder(ClientParts parts, TopicDefinition topic, Type payloadType, String defaultId,
                     Consumer<RmqConsumerContainer<?>> built) {
        this.parts = parts;
        this.topic = topic;
        this.payloadType = payloadType;
        this.defaultId = defaultId;
        this.built = built;
    }

    /** Handles one message at a time on the worker's thread; see {@link RmqHandler}. */
    public ContainerBuilder<T> handler(RmqHandler<T> value) {
        return handlers("handler", value, () -> Handlers.single(
                parts.observations() == null ? value : parts.observations().process(value)));
    }

    /**
     * Handles one message at a time with a result that completes later; the slot's next message waits for it. See
     * {@link RmqAsyncHandler}.
     */
    public ContainerBuilder<T> asyncHandler(RmqAsyncHandler<T> value) {
        return handlers("asyncHandler", value, () -> Handlers.async(
                parts.observations() == null ? value : parts.observations().processAsync(value)));
    }

    /**
     * Handles the messages of one poll of one slot together, up to the batch size; see {@link RmqBatchHandler}.
     * Batch calls are not observed one by one: the container's metrics still count each message.
     */
    public ContainerBuilder<T> batchHandler(RmqBatchHandler<T> value) {
        return handlers("batchHandler", value, () -> Handlers.batch(value));
    }

    private ContainerBuilder<T> handlers(String name, Object value, Supplier<Handlers<T>> made) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (handlers != null) {
            throw new IllegalStateException("this container already has a " + shape + "; a container has one handler,"
                    + " of one shape: handler, asyncHandler or batchHandler");
        }
        this.shape = name;
        this.handlers = made.get();
        return this;
    }

    /**
     * Runs the container's workers, and with them its handlers: each worker takes one of its threads for as long as
     * the container runs, so it needs at least {@code concurrency} threads, the sum over the containers that share it
     * (a virtual-thread executor on Java 21 and later fits well). A worker the executor does not start before the
     * container stops is given up, with its slots. By default each worker has a platform thread of its own. Threads are named after the
     * container while they run a worker, and after the slot too while they handle its messages.
     */
    public ContainerBuilder<T> executor(Executor value) {
        if (value == null) {
            throw new IllegalArgumentException("executor must not be null; leave it unset for a thread per worker");
        }
        this.executor = value;
        return this;
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
     * How a worker chooses among the slots it holds: {@link SlotOrder#MOST_URGENT} by default, so that across its
     * slots it takes messages in the topic's order; {@link SlotOrder#ROUND_ROBIN} for the fewest calls to Redis
     * under a backlog spread over many slots.
     */
    public ContainerBuilder<T> slotOrder(SlotOrder value) {
        return settings(settings.withSlotOrder(value));
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
        Handlers<T> given = handlers;
        if (given == null) {
            throw new IllegalStateException("container '" + containerId + "' has no handler; give it one with"
                    + " handler(...), asyncHandler(...) or batchHandler(...)");
        }
        WorkerFactory<T> workers = new WorkerFactory<>(topic, settings, parts.keys(), parts.scripts(), given,
                parts.payloads(), payloadType, parts.metrics(), parts.events(),
                parts.consumerOutages("container " + containerId, topic.name(),
                        "its workers poll again with a back-off until it does", log),
                parts.zone(), errorHandler);
        WakeSubscription wakes = new WakeSubscription(parts.redisson(), parts.keys().wakeChannel(topic.name()));
        ConsumerContainer<T> container = new ConsumerContainer<>(containerId, topic, settings, workers, wakes, assignment,
                executor);
        built.accept(container);
        return container;
    }
}
