package dev.rmq;

import dev.rmq.admin.RmqAdmin;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.events.RmqEventListener;
import dev.rmq.inspect.RmqInspector;
import dev.rmq.internal.pull.Puller;
import dev.rmq.internal.journal.RedisRestorer;
import dev.rmq.internal.schedule.RedisSchedules;
import dev.rmq.journal.MessageJournal;
import dev.rmq.journal.RmqRestorer;
import dev.rmq.internal.admin.RedisAdmin;
import dev.rmq.internal.coordination.RedisSlotFencing;
import dev.rmq.internal.dead.RedisDeadQueue;
import dev.rmq.internal.inspect.RedisTopicInspector;
import dev.rmq.internal.redis.KeyLayout;
import io.micrometer.observation.ObservationRegistry;
import dev.rmq.internal.redis.OutageWatches;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PreparedMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendHold;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.Names;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.rmq.internal.validation.Required.required;

/**
 * The entry point of rmq: a Redisson client bound to a set of topics. It hands out the producer, the dead queue,
 * the inspector, consumer containers and pullers. It owns no connection: closing Redisson is the caller's business.
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
    /** The default send buffer (see {@link Builder#sendBufferBytes}): 32 MiB, as Kafka's producer buffers. */
    public static final long DEFAULT_SEND_BUFFER_BYTES = 32L << 20;
    /** The smallest send buffer that may be configured. */
    public static final long MIN_SEND_BUFFER_BYTES = 1024;

    private final ProducerChain producers;
    private final RmqDeadQueue deadQueue;
    private final RmqInspector inspector;
    private final RmqAdmin admin;
    private final RmqRestorer restorer;
    private final RedisSchedules schedules;
    private final SlotFencing slotFencing;
    /** What the client is made of, which its consumers' builders share. */
    private final ClientParts parts;
    private final AtomicInteger containerCount = new AtomicInteger();
    private final List<RmqConsumerContainer<?>> containers = new CopyOnWriteArrayList<>();
    private final List<RmqPuller<?>> pullers = new CopyOnWriteArrayList<>();

    private RmqClient(Builder b) {
        this.parts = ClientParts.assemble(b);
        TopicRegistry topics = parts.topics();
        KeyLayout keys = parts.keys();
        ScriptRunner scripts = parts.scripts();
        this.producers = ProducerChain.of(parts.sends(b, log), b.journal, topics, parts.payloads(),
                parts.observations(), b.sendHold);
        // consumers of other applications hold their lost deliveries' slots until the leases run out
        this.restorer = new RedisRestorer(topics, keys, scripts, (topic, slot, lost) -> pullers.forEach(puller -> {
            if (puller instanceof Puller<?> mine) {
                mine.forgetLost(topic, slot, lost);
            }
        }));
        this.deadQueue = new RedisDeadQueue(topics, keys, scripts, b.journal);
        this.inspector = new RedisTopicInspector(topics, keys, scripts, producers.producer()::getAsync, b.journal);
        this.slotFencing = new RedisSlotFencing(keys, scripts);
        // a tick is sent by the schedule's own thread, in no transaction of the application's
        this.schedules = new RedisSchedules(topics, keys, scripts, parts.payloads(), parts.metrics(),
                producers.unheld(), Clock.systemUTC(), b.journal);
        this.admin = new RedisAdmin(parts.redisson(), topics, keys, scripts, b.journal, schedules);
    }

    public static Builder builder(RedissonClient redisson) {
        return new Builder(redisson);
    }

    public RmqProducer producer() {
        return producers.producer();
    }

    /**
     * Checks {@code message} as a send does, and encodes it, without sending it: for what keeps sends to make later
     * (an outbox). Send it later as {@link dev.rmq.codec.EncodedPayload} with the key it gives.
     *
     * @throws IllegalArgumentException when a send of it would be refused before reaching Redis
     */
    public PreparedMessage prepare(OutgoingMessage message) {
        return producers.checks().checked(message);
    }

    public RmqDeadQueue deadQueue() {
        return deadQueue;
    }

    /** Reads what is queued without taking it: counts, the next messages, those in flight, one by key. */
    public RmqInspector inspector() {
        return inspector;
    }

    /** The listener containers this client has built, running or not. */
    public List<RmqConsumerContainer<?>> containers() {
        return List.copyOf(containers);
    }

    /** Pauses, resumes and clears topics for every consumer at once, and declares recurring schedules. */
    public RmqAdmin admin() {
        return admin;
    }

    /** Puts messages back that Redis lost, each unless Redis still holds its key; for a journal's restore. */
    public RmqRestorer restorer() {
        return restorer;
    }

    public TopicRegistry topics() {
        return parts.topics();
    }

    /** The Redisson client rmq runs on, as it was given. */
    public RedissonClient redisson() {
        return parts.redisson();
    }

    /** The availability zone this client runs in, or null for none. */
    public @Nullable String zone() {
        return parts.zone();
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
            schedules.close();
            pullers.forEach(RmqPuller::close);
            ContainerStops.stopRunning(containers);
        } finally {
            parts.outages().close();
        }
    }

    /**
     * Starts describing a puller, a consumer the program drives: {@code rmq.puller(Order.class).topics("orders")
     * .build()}, then {@code start()} and {@code poll(...)}. The client's {@link #close()} closes it too.
     */
    public <T> PullerBuilder<T> puller(Class<T> payloadType) {
        return puller((Type) payloadType);
    }

    /** Like {@link #puller(Class)} for generic payload types. */
    public <T> PullerBuilder<T> puller(Type payloadType) {
        String id = "puller-" + containerCount.incrementAndGet();
        return new PullerBuilder<>(parts, payloadType, id, pullers::add, pullers::remove);
    }

    /** Starts describing a container that consumes {@code topic} with {@code handler}, one message at a time. */
    public <T> ContainerBuilder<T> container(String topic, Class<T> payloadType, RmqHandler<T> handler) {
        return container(topic, (Type) payloadType, handler);
    }

    /** Like {@link #container(String, Class, RmqHandler)} for generic payload types. */
    public <T> ContainerBuilder<T> container(String topic, Type payloadType, RmqHandler<T> handler) {
        return this.<T>container(topic, payloadType).handler(handler);
    }

    /**
     * Starts describing a container that consumes {@code topic}; its handler comes next, of one of three shapes:
     * {@link ContainerBuilder#handler}, {@link ContainerBuilder#asyncHandler} or {@link ContainerBuilder#batchHandler}.
     */
    public <T> ContainerBuilder<T> container(String topic, Class<T> payloadType) {
        return container(topic, (Type) payloadType);
    }

    /** Like {@link #container(String, Class)} for generic payload types. */
    public <T> ContainerBuilder<T> container(String topic, Type payloadType) {
        return new ContainerBuilder<>(parts, parts.topics().require(topic), payloadType,
                topic + "-" + containerCount.incrementAndGet(), containers::add);
    }

    /** Collects the client's settings; {@link #build()} checks them. */
    public static final class Builder {
        final RedissonClient redisson;
        final List<TopicDefinition> topics = new ArrayList<>();
        String namespace = "";
        String keyPrefix = KeyLayout.DEFAULT_PREFIX;
        /** Null for the default, deterministic JSON. */
        @Nullable PayloadCodec codec;
        @Nullable PayloadKeyRing keyRing;
        final List<PayloadUpcaster> upcasters = new ArrayList<>();
        int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        long sendBufferBytes = DEFAULT_SEND_BUFFER_BYTES;
        RmqMetrics metrics = RmqMetrics.NONE;
        Duration outageThreshold = OutageWatches.DEFAULT_THRESHOLD;
        RmqEventListener events = RmqEventListener.NONE;
        @Nullable MessageJournal journal;
        @Nullable SendHold sendHold;
        @Nullable String zone;
        @Nullable ObservationRegistry observationRegistry;
        ScriptMode scriptMode = ScriptMode.FUNCTIONS;

        private Builder(RedissonClient redisson) {
            this.redisson = required(redisson, "a RedissonClient is required");
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

        /** Keeps this application's topics apart from another's in one Redis: {@code rmq:body{ns:orders_3}}. */
        public Builder namespace(String value) {
            this.namespace = value;
            return this;
        }

        /**
         * What every key starts with, before a {@code :}; {@code rmq} by default. {@code ""} keeps the names of rmq
         * before the prefix; with a prefix, the client moves what it finds under those names when it is built.
         */
        public Builder keyPrefix(String value) {
            required(value, "keyPrefix must not be null; use \"\" for the names without a prefix");
            this.keyPrefix = value.isEmpty() ? value : Names.check("keyPrefix", value);
            return this;
        }

        /** The payload codec; deterministic JSON by default. */
        public Builder codec(PayloadCodec value) {
            this.codec = value;
            return this;
        }

        /** The keys that encrypt the payloads of topics whose form says so, and decrypt any that used them. */
        public Builder keyRing(PayloadKeyRing value) {
            this.keyRing = required(value, "keyRing must not be null");
            return this;
        }

        /** A step that brings a topic's payloads from one version to the next; see {@link PayloadUpcaster}. */
        public Builder upcaster(PayloadUpcaster value) {
            upcasters.add(required(value, "an upcaster must not be null"));
            return this;
        }

        /** The largest message (payload plus headers, as stored) a send accepts; 1 MiB by default. */
        public Builder maxPayloadBytes(int value) {
            this.maxPayloadBytes = value;
            return this;
        }

        /**
         * The most bytes of messages that single sends may hold waiting for the call before them; 32 MiB by default,
         * at least 1024. A send past it fails at once, unsent, with {@link dev.rmq.producer.SendBufferFullException},
         * but the first to wait in its lane, and those a transaction's commit releases.
         */
        public Builder sendBufferBytes(long value) {
            if (value < MIN_SEND_BUFFER_BYTES) {
                throw new IllegalArgumentException("sendBufferBytes must be at least " + MIN_SEND_BUFFER_BYTES
                        + ", was " + value);
            }
            this.sendBufferBytes = value;
            return this;
        }

        /** Where sends, consumes and acknowledgements are counted; nowhere by default. */
        public Builder metrics(RmqMetrics value) {
            this.metrics = required(value, "metrics must not be null; use RmqMetrics.NONE for none");
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

        /**
         * The availability zone this application runs in, for topics whose slots are spread over zones: its
         * producer sends to that zone's slots, and its consumers take that zone's slots first. None by default, or
         * when {@code value} is null.
         */
        public Builder zone(@Nullable String value) {
            this.zone = value == null ? null : Names.check("zone name", value);
            return this;
        }

        /**
         * Observes every send and every handler call of this client's containers on {@code registry}: with a
         * tracing handler, a trace started where a message is sent continues in the handler that consumes it,
         * through the message's headers. Nothing is observed by default.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observationRegistry = required(registry,
                    "observationRegistry must not be null; leave it unset for none");
            return this;
        }

        /** Where the consumers' events go, one by one; nowhere by default. */
        public Builder events(RmqEventListener value) {
            this.events = required(value, "events must not be null; use RmqEventListener.NONE for none");
            return this;
        }

        /**
         * A journal that hears of every send (after Redis stored it; a send completes when the journal lets it),
         * every change by key, and every consumer event; none by default.
         */
        public Builder journal(MessageJournal value) {
            this.journal = required(value, "journal must not be null; leave it unset for none");
            return this;
        }

        /**
         * Where the producer's sends wait for a unit of work around them to end (a database transaction, for the
         * Spring Boot starter): each is checked at once, then sent once the work commits, or dropped if it rolls
         * back. None by default: every send goes at once.
         */
        public Builder sendHold(SendHold value) {
            this.sendHold = required(value, "sendHold must not be null; leave it unset to send at once");
            return this;
        }

        /** How rmq's scripts run in Redis: as Redis Functions where Redis has them, by default. */
        public Builder scriptMode(ScriptMode value) {
            this.scriptMode = required(value, "scriptMode must not be null; it is FUNCTIONS or EVALSHA");
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
