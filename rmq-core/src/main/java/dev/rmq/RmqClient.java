package dev.rmq;

import dev.rmq.admin.RmqAdmin;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.consumer.StopReport;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.admin.RedisAdmin;
import dev.rmq.internal.consumer.ConsumerContainer;
import dev.rmq.internal.consumer.WakeSubscription;
import dev.rmq.internal.consumer.WorkerFactory;
import dev.rmq.internal.coordination.RedisSlotFencing;
import dev.rmq.internal.dead.RedisDeadQueue;
import dev.rmq.internal.inspect.RedisTopicInspector;
import dev.rmq.internal.producer.ScriptProducer;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatches;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.metrics.TopicInspector;
import dev.rmq.producer.Durability;
import dev.rmq.producer.RmqProducer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The entry point of rmq: a Redisson client bound to a set of topics. It hands out the producer, the
 * dead queue, the inspector and consumer containers. It owns no connection: closing Redisson is the
 * caller's business.
 *
 * <pre>{@code
 * RmqClient rmq = RmqClient.builder(redisson)
 *         .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(16).build())
 *         .build();
 * rmq.producer().send(OutgoingMessage.fixedTime("orders", order, deadline).withKey(order.id()));
 * }</pre>
 *
 * <p>This class is where rmq's parts are put together: each is built here with what it needs, once.
 * {@link #close()} stops the containers it built that still run.
 */
public final class RmqClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    /** The default limit of a message's payload plus headers: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
    /** The largest limit that may be configured (Redis strings hold up to 512 MB; rmq keeps far below). */
    public static final int MAX_PAYLOAD_LIMIT = 64 << 20;

    private final RedissonClient redisson;
    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final PayloadCodec codec;
    private final RmqMetrics metrics;
    private final RmqEventListener events;
    private final RmqProducer producer;
    private final RmqDeadQueue deadQueue;
    private final TopicInspector inspector;
    private final RmqAdmin admin;
    private final SlotFencing slotFencing;
    private final OutageWatches outages;
    private final AtomicInteger containerCount = new AtomicInteger();
    private final List<RmqConsumerContainer<?>> containers = new CopyOnWriteArrayList<>();

    private RmqClient(Builder b) {
        this.redisson = b.redisson;
        this.topics = TopicRegistry.of(b.topics);
        this.keys = new KeyLayout(b.namespace);
        this.scripts = new ScriptRunner(redisson);
        this.codec = b.codec != null ? b.codec : new JsonPayloadCodec();
        this.metrics = b.metrics;
        this.events = b.events;
        this.outages = new OutageWatches(b.outageThreshold);
        this.producer = new ScriptProducer(topics, keys, scripts, codec, b.maxPayloadBytes, metrics, Durability.MASTER_ONLY,
                outages.watch("producer", "sends fail or wait until it does; a send whose outcome is unknown may be"
                        + " sent again, it merges while it waits", log, length -> metrics.redisOutage("producer", null, length)));
        this.deadQueue = new RedisDeadQueue(redisson, topics, keys, scripts);
        this.inspector = new RedisTopicInspector(redisson, topics, keys);
        this.admin = new RedisAdmin(redisson, topics, keys);
        this.slotFencing = new RedisSlotFencing(keys, scripts);
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
        return inspector;
    }

    /** The listener containers this client has built, running or not. */
    public List<RmqConsumerContainer<?>> containers() {
        return List.copyOf(containers);
    }

    /** Pauses and resumes topics for every consumer at once. */
    public RmqAdmin admin() {
        return admin;
    }

    public TopicRegistry topics() {
        return topics;
    }

    /** The Redisson client rmq runs on, as it was given. */
    public RedissonClient redisson() {
        return redisson;
    }

    /** The slots' fencing tokens, for a {@link SlotAssignment} that gives each slot to one worker of a cluster. */
    public SlotFencing slotFencing() {
        return slotFencing;
    }

    /**
     * Stops every container this client built that still runs, all at once, each within its
     * {@link ConsumerSettings#shutdownTimeout()}, and logs one line that says what the stop did. The Redisson
     * client is the caller's, and stays open.
     */
    @Override
    public void close() {
        try {
            stopContainers();
        } finally {
            outages.close();
        }
    }

    private void stopContainers() {
        List<CompletableFuture<StopReport>> stops = new ArrayList<>();
        for (RmqConsumerContainer<?> container : containers) {
            if (container.isRunning()) {
                stops.add(CompletableFuture.supplyAsync(() -> container.stop(container.settings().shutdownTimeout()),
                        runnable -> new Thread(runnable, "rmq-stop-" + container.id()).start()));
            }
        }
        if (stops.isEmpty()) {
            return;
        }
        StopReport report = StopReport.sum(stops.stream().map(CompletableFuture::join).toList());
        if (report.needsAttention()) {
            log.warn("rmq {}", report.describe());
        } else {
            log.info("rmq {}", report.describe());
        }
    }

    /** Starts describing a container that consumes {@code topic} with {@code handler}. */
    public <T> ContainerBuilder<T> container(String topic, Class<T> payloadType, RmqHandler<T> handler) {
        return new ContainerBuilder<>(topics.require(topic), payloadType, handler);
    }

    /** Like {@link #container(String, Class, RmqHandler)} for generic payload types. */
    public <T> ContainerBuilder<T> container(String topic, Type payloadType, RmqHandler<T> handler) {
        return new ContainerBuilder<>(topics.require(topic), payloadType, handler);
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
            if (payloadType == null) {
                throw new IllegalArgumentException("payload type of container '" + containerId + "' must not be null");
            }
            if (handler == null) {
                throw new IllegalArgumentException("handler of container '" + containerId + "' must not be null");
            }
            WorkerFactory<T> workers = new WorkerFactory<>(topic, settings, keys, scripts, handler, codec, payloadType,
                    metrics, events, outages.watch("container " + containerId + " of topic " + topic.name(),
                            "its workers poll again with a back-off until it does", log,
                            length -> metrics.redisOutage("consumer", topic.name(), length)));
            WakeSubscription wakes = new WakeSubscription(redisson, keys.wakeChannel(topic.name()));
            ConsumerContainer<T> container = new ConsumerContainer<>(containerId, topic, settings, workers, wakes, assignment);
            containers.add(container);
            return container;
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
        private Duration outageThreshold = OutageWatches.DEFAULT_THRESHOLD;
        private RmqEventListener events = RmqEventListener.NONE;

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

        /** Where sends, consumes and acknowledgements are counted; nowhere by default. */
        public Builder metrics(RmqMetrics value) {
            if (value == null) {
                throw new IllegalArgumentException("metrics must not be null; use RmqMetrics.NONE for none");
            }
            this.metrics = value;
            return this;
        }

        /**
         * How long a container's or the producer's calls to Redis must have failed, or waited for a reply, before
         * it logs one WARN line for the outage (and one INFO line with its length when Redis answers again); 2 s
         * by default, longer than the usual pause of a failover.
         */
        public Builder outageThreshold(Duration value) {
            if (value == null || value.isNegative() || value.isZero() || value.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("outageThreshold must be positive and at most 10 minutes, was " + value);
            }
            this.outageThreshold = value;
            return this;
        }

        /** Where the consumers' events go, one by one; nowhere by default. */
        public Builder events(RmqEventListener value) {
            if (value == null) {
                throw new IllegalArgumentException("events must not be null; use RmqEventListener.NONE for none");
            }
            this.events = value;
            return this;
        }

        public RmqClient build() {
            if (maxPayloadBytes < 1 || maxPayloadBytes > MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("maxPayloadBytes must be in 1.." + MAX_PAYLOAD_LIMIT + ", was "
                        + maxPayloadBytes);
            }
            return new RmqClient(this);
        }
    }
}
