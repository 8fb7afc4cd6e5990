package dev.rmq.internal.consumer;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.slot.ConsumerEvents;
import dev.rmq.internal.slot.Delivery;
import dev.rmq.internal.slot.HandlerFailures;
import dev.rmq.internal.slot.LeaseKeeper;
import dev.rmq.internal.slot.RateGate;
import dev.rmq.internal.slot.Sessions;
import dev.rmq.internal.slot.SlotCalls;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Builds the workers of one container, each a driver of its own slot sessions over the container's script calls,
 * with one lease keeper for all of them.
 *
 * @param <T> the payload type
 */
public final class WorkerFactory<T> {

    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final KeyLayout keys;
    private final SlotCalls calls;
    private final Handlers<T> handlers;
    /** Renews the leases of the batches in hand, for all the container's workers. */
    private final LeaseKeeper leases;
    private final Payloads payloads;
    private final Type payloadType;
    private final RmqMetrics metrics;
    private final ConsumerEvents events;
    /** Whether the container's calls reach Redis. */
    private final OutageWatch outage;
    /** The failure log of the container's workers, rate-limited for all of them together. */
    private final HandlerFailures failures;
    /** Decides what a handler's exception does to its message. */
    private final RmqErrorHandler errorHandler;
    /** The zone the container runs in, null for none: its workers poll that zone's slots first. */
    private final @Nullable String zone;
    /** The container's gate on the topic's rate limit, shared by its workers. */
    private final RateGate rate;

    public WorkerFactory(TopicDefinition topic, ConsumerSettings settings, KeyLayout keys, ScriptRunner scripts,
                         Handlers<T> handlers, Payloads payloads, Type payloadType, RmqMetrics metrics,
                         RmqEventListener events, OutageWatch outage, @Nullable String zone,
                         RmqErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
        this.failures = new HandlerFailures(topic);
        this.zone = zone;
        this.topic = topic;
        this.settings = settings;
        this.keys = keys;
        this.calls = new SlotCalls(scripts, topic, settings, keys.wakeChannel(topic.name()), outage);
        this.outage = outage;
        this.handlers = handlers;
        this.leases = new LeaseKeeper("rmq-leases-" + topic.name());
        this.payloads = payloads;
        this.payloadType = payloadType;
        this.metrics = metrics;
        this.events = new ConsumerEvents(events);
        this.rate = RateGate.of(topic, scripts, keys.rateBucket(topic.name()));
    }

    /** How long the container's calls have not reached Redis, once that is an outage. */
    Optional<Duration> redisOutage() {
        return outage.outage();
    }

    /** Ends the lease keeper's thread, once the workers have stopped. */
    void stopped() {
        leases.shutdown();
    }

    SlotWorker<T> newWorker(String id) {
        AtomicReference<SlotWorker<T>> worker = new AtomicReference<>();
        Sessions<T> sessions = new Sessions<>(new Sessions.Parts<>(topic, "worker", id, keys, calls, rate, payloads,
                payloadType, metrics, events, failures, true, Delivery::new,
                () -> Objects.requireNonNull(worker.get(), "a worker is made before its sessions ask").stopping()));
        BatchRunner<T> batches = new BatchRunner<>(handlers.invoker(topic, metrics, errorHandler), leases);
        SlotWorker<T> made = new SlotWorker<>(id, settings, sessions, batches,
                slot -> topic.zones().isLocal(slot, zone));
        worker.set(made);
        return made;
    }
}
