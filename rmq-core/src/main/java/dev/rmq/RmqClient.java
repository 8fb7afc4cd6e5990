package dev.rmq;

import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.metrics.TopicInspector;
import dev.rmq.producer.RmqProducer;
import dev.rmq.redis.KeyLayout;
import dev.rmq.redis.ScriptRunner;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.RedissonClient;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The entry point of rmq: a Redisson client bound to a set of topics. It hands out the producer, the
 * dead queue and consumer containers. It owns no connection: closing Redisson is the caller's business.
 *
 * <pre>{@code
 * RmqClient rmq = RmqClient.builder(redisson)
 *         .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(16).build())
 *         .build();
 * rmq.producer().send(OutgoingMessage.fixedTime("orders", order, deadline).withKey(order.id()));
 * }</pre>
 */
public final class RmqClient {

    /** The default limit of a message's payload plus headers: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
    /** The largest limit that may be configured (Redis strings hold up to 512 MB; rmq keeps far below). */
    public static final int MAX_PAYLOAD_LIMIT = 64 << 20;

    private final RmqContext context;
    private final RmqProducer producer;
    private final RmqDeadQueue deadQueue;
    private final AtomicInteger containerCount = new AtomicInteger();

    private RmqClient(RmqContext context) {
        this.context = context;
        this.producer = new RmqProducer(context);
        this.deadQueue = new RmqDeadQueue(context);
    }

    public static Builder builder(RedissonClient redisson) {
        return new Builder(redisson);
    }

    public RmqProducer producer() {
        return producer;
    }

    public RmqDeadQueue deadQueue() {
        return deadQueue;
    }

    /** Reads backlog, in-flight and dead sizes per slot. */
    public TopicInspector inspector() {
        return new TopicInspector(context);
    }

    public TopicRegistry topics() {
        return context.topics();
    }

    public RmqContext context() {
        return context;
    }

    /** Starts describing a container that consumes {@code topic} with {@code handler}. */
    public <T> ContainerBuilder<T> container(String topic, Class<T> payloadType, RmqHandler<T> handler) {
        return new ContainerBuilder<>(context.topics().require(topic), payloadType, handler);
    }

    /** Like {@link #container(String, Class, RmqHandler)} for generic payload types. */
    public <T> ContainerBuilder<T> container(String topic, Type payloadType, RmqHandler<T> handler) {
        return new ContainerBuilder<>(context.topics().require(topic), payloadType, handler);
    }

    /** Collects a container's settings; {@link #build()} checks them. */
    public final class ContainerBuilder<T> {
        private final TopicDefinition topic;
        private final Type payloadType;
        private final RmqHandler<T> handler;
        private ConsumerSettings settings = ConsumerSettings.DEFAULTS;
        private Supplier<? extends SlotAssignment> assignment = LocalSlotAssignment::new;
        private String id;

        private ContainerBuilder(TopicDefinition topic, Type payloadType, RmqHandler<T> handler) {
            this.topic = topic;
            this.payloadType = payloadType;
            this.handler = handler;
        }

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

        public RmqConsumerContainer<T> build() {
            String containerId = id != null ? id : topic.name() + "-" + containerCount.incrementAndGet();
            return new RmqConsumerContainer<>(containerId, context, topic, payloadType, handler, settings, assignment);
        }
    }

    /** Collects the client's settings; {@link #build()} checks them. */
    public static final class Builder {
        private final RedissonClient redisson;
        private final List<TopicDefinition> topics = new ArrayList<>();
        private String namespace = "";
        private PayloadCodec codec;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private RmqMetrics metrics = RmqMetrics.NONE;

        private Builder(RedissonClient redisson) {
            if (redisson == null) {
                throw new IllegalArgumentException("a RedissonClient is required");
            }
            this.redisson = redisson;
        }

        public Builder topic(TopicDefinition topic) {
            if (topic == null) {
                throw new IllegalArgumentException("topic definition must not be null");
            }
            topics.add(topic);
            return this;
        }

        public Builder topics(Iterable<TopicDefinition> definitions) {
            definitions.forEach(this::topic);
            return this;
        }

        /** A prefix for every key, so that several applications can share one Redis; none by default. */
        public Builder namespace(String value) {
            this.namespace = value;
            return this;
        }

        /** The payload codec; deterministic JSON by default. */
        public Builder codec(PayloadCodec value) {
            this.codec = value;
            return this;
        }

        /** The largest message (payload plus headers) a send accepts; 1 MiB by default. */
        public Builder maxPayloadBytes(int value) {
            this.maxPayloadBytes = value;
            return this;
        }

        /** Where sends, consumes and acknowledgements are reported; nowhere by default. */
        public Builder metrics(RmqMetrics value) {
            if (value == null) {
                throw new IllegalArgumentException("metrics must not be null; use RmqMetrics.NONE for none");
            }
            this.metrics = value;
            return this;
        }

        public RmqClient build() {
            if (maxPayloadBytes < 1 || maxPayloadBytes > MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("maxPayloadBytes must be in 1.." + MAX_PAYLOAD_LIMIT + ", was "
                        + maxPayloadBytes);
            }
            RmqContext context = new RmqContext(redisson, TopicRegistry.of(topics), new KeyLayout(namespace),
                    new ScriptRunner(redisson), codec != null ? codec : new JsonPayloadCodec(), maxPayloadBytes, metrics);
            return new RmqClient(context);
        }
    }
}
