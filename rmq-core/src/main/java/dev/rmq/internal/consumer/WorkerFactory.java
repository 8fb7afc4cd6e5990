package dev.rmq.internal.consumer;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Optional;

/**
 * Builds the workers of one container, each with its own batch runner, acknowledger and lease keeper over
 * the container's script calls.
 *
 * @param <T> the payload type
 */
public final class WorkerFactory<T> {

    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final KeyLayout keys;
    private final SlotCalls calls;
    private final Handlers<T> handlers;
    /** Extends the leases of long batch and asynchronous calls, for all the container's workers. */
    private final LeaseTimer leaseTimer;
    private final PayloadCodec codec;
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
    private final String zone;
    /** The container's gate on the topic's rate limit, shared by its workers. */
    private final RateGate rate;

    public WorkerFactory(TopicDefinition topic, ConsumerSettings settings, KeyLayout keys, ScriptRunner scripts,
                         Handlers<T> handlers, PayloadCodec codec, Type payloadType, RmqMetrics metrics,
                         RmqEventListener events, OutageWatch outage, String zone, RmqErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
        this.failures = new HandlerFailures(topic);
        this.zone = zone;
        this.topic = topic;
        this.settings = settings;
        this.keys = keys;
        this.calls = new SlotCalls(scripts, topic, settings, keys.wakeChannel(topic.name()), outage);
        this.outage = outage;
        this.handlers = handlers;
        this.leaseTimer = new LeaseTimer("rmq-leases-" + topic.name());
        this.codec = codec;
        this.payloadType = payloadType;
        this.metrics = metrics;
        this.events = new ConsumerEvents(events);
        this.rate = RateGate.of(topic, scripts, keys.rateBucket(topic.name()));
    }

    /** How long the container's calls have not reached Redis, once that is an outage. */
    Optional<Duration> redisOutage() {
        return outage.outage();
    }

    /** Ends the lease timer's thread, once the workers have stopped. */
    void stopped() {
        leaseTimer.shutdown();
    }

    SlotWorker newWorker(String id) {
        Settlement acks = topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE
                ? new AtMostOnceSettlement(id, topic, calls, failures)
                : new Acknowledger(id, topic, calls, metrics, events, failures);
        LeaseKeeper leases = new LeaseKeeper(id, topic, calls, events);
        BatchRunner<T> batches = new BatchRunner<>(topic, handlers.invoker(topic, metrics, errorHandler), codec,
                payloadType, acks, leases, leaseTimer, metrics);
        return new SlotWorker(id, topic, settings, keys, calls, batches, rate, metrics, events,
                slot -> topic.zones().isLocal(slot, zone));
    }
}
