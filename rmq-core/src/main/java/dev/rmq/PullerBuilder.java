package dev.rmq;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.internal.slot.ConsumerEvents;
import dev.rmq.internal.slot.RateGate;
import dev.rmq.internal.slot.SlotCalls;
import dev.rmq.internal.slot.WakeSubscription;
import dev.rmq.internal.pull.PullSource;
import dev.rmq.internal.pull.Puller;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Collects a puller's settings; {@link #build()} checks them. Obtained from {@link RmqClient#puller(Type)}.
 *
 * @param <T> the payload type of every topic the puller takes from
 */
public final class PullerBuilder<T> {

    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    private final ClientParts parts;
    private final Type payloadType;
    private final Consumer<RmqPuller<?>> built;
    /** Told of a puller once it is closed: the client lets it go, as a closed puller never starts again. */
    private final Consumer<RmqPuller<?>> closed;
    private final String defaultId;
    private final Set<String> topics = new LinkedHashSet<>();
    /** Null for the default id. */
    private @Nullable String id;
    private Function<TopicDefinition, ? extends SlotAssignment> assignment = topic -> new LocalSlotAssignment();
    /** The idle poll and the close timeout, checked as a container's are. */
    private ConsumerSettings settings = ConsumerSettings.DEFAULTS;

    PullerBuilder(ClientParts parts, Type payloadType, String defaultId, Consumer<RmqPuller<?>> built,
                  Consumer<RmqPuller<?>> closed) {
        if (payloadType == null) {
            throw new IllegalArgumentException("payload type of a puller must not be null");
        }
        this.parts = parts;
        this.payloadType = payloadType;
        this.defaultId = defaultId;
        this.built = built;
        this.closed = closed;
    }

    /** The topics to take from: at least one, each defined in the client. */
    public PullerBuilder<T> topics(String... names) {
        if (names == null) {
            throw new IllegalArgumentException("topics must not be null");
        }
        for (String name : names) {
            parts.topics().require(name);
            topics.add(name);
        }
        return this;
    }

    /** Its id, unique among this client's pullers and containers; {@code puller-N} by default. */
    public PullerBuilder<T> id(String value) {
        if (value == null || value.isBlank() || value.contains("/")) {
            throw new IllegalArgumentException("puller id must be a non-blank name without '/', was " + value);
        }
        this.id = value;
        return this;
    }

    /**
     * How slots are handed to the puller, a new assignment per topic; local (every slot) by default. With
     * ZooKeeper: {@code coordinator::newAssignment}.
     */
    public PullerBuilder<T> assignment(Supplier<? extends SlotAssignment> value) {
        if (value == null) {
            throw new IllegalArgumentException("assignment must not be null");
        }
        return assignmentByTopic(topic -> value.get());
    }

    /** Like {@link #assignment(Supplier)}, for an assignment that depends on the topic. */
    public PullerBuilder<T> assignmentByTopic(Function<TopicDefinition, ? extends SlotAssignment> value) {
        if (value == null) {
            throw new IllegalArgumentException("assignment must not be null");
        }
        this.assignment = value;
        return this;
    }

    /** The longest a slot goes unpolled while the puller waits, when no wake-up comes; 1 s by default. */
    public PullerBuilder<T> idlePoll(Duration value) {
        this.settings = settings.withIdlePoll(value);
        return this;
    }

    /**
     * How the puller chooses among the slots it holds of a topic: {@link SlotOrder#MOST_URGENT} by default, so that
     * across its slots it takes messages in the topic's order; {@link SlotOrder#ROUND_ROBIN} for the fewest calls
     * to Redis under a backlog spread over many slots.
     */
    public PullerBuilder<T> slotOrder(SlotOrder value) {
        this.settings = settings.withSlotOrder(value);
        return this;
    }

    /** The longest {@link RmqPuller#close()} takes to hand messages back and give the slots back; 10 s by default. */
    public PullerBuilder<T> closeTimeout(Duration value) {
        this.settings = settings.withShutdownTimeout(value);
        return this;
    }

    public RmqPuller<T> build() {
        if (topics.isEmpty()) {
            throw new IllegalArgumentException("a puller takes from at least one topic: call topics(...)");
        }
        String pullerId = id != null ? id : defaultId;
        ConsumerEvents events = new ConsumerEvents(parts.events());
        List<String> names = new ArrayList<>(topics);
        List<OutageWatch> watches = new ArrayList<>();
        AtomicReference<Puller<T>> made = new AtomicReference<>();
        Puller<T> puller = new Puller<>(pullerId, parts.topics(), names, settings.shutdownTimeout(), (name, changed) -> {
            TopicDefinition topic = parts.topics().require(name);
            OutageWatch watch = parts.consumerOutages("puller " + pullerId, name, "its polls fail until it does", log);
            watches.add(watch);
            SlotCalls calls = new SlotCalls(parts.scripts(), topic, settings, parts.keys().wakeChannel(name), watch);
            return new PullSource<>(pullerId, topic, parts.keys(), calls,
                    RateGate.of(topic, parts.scripts(), parts.keys().rateBucket(name)),
                    new WakeSubscription(parts.redisson(), parts.keys().wakeChannel(name)), () -> assignment.apply(topic),
                    parts.payloads(),
                    payloadType, parts.metrics(), events, settings.idlePoll(), parts.zone(), changed);
        }, () -> {
            watches.forEach(parts.outages()::remove);
            closed.accept(made.get());
        });
        made.set(puller);
        built.accept(puller);
        return puller;
    }

    @Override
    public String toString() {
        return "PullerBuilder[" + (id != null ? id : defaultId) + ", topics=" + Arrays.toString(topics.toArray()) + "]";
    }
}
