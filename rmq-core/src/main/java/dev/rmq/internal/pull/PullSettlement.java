package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.events.RmqEvent;
import dev.rmq.internal.consumer.ConsumerEvents;
import dev.rmq.internal.consumer.HandlerFailures;
import dev.rmq.internal.consumer.SlotCalls;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How the deliveries of one topic of a puller end, from any thread: committed, retried, buried or handed back in
 * one call per slot, and their leases extended. A delivery whose lease has run out is not acknowledged: the
 * program learns so, since another consumer may have it by then.
 */
final class PullSettlement<T> {

    private final String id;
    private final TopicDefinition topic;
    private final SlotCalls calls;
    private final RmqMetrics metrics;
    private final ConsumerEvents events;
    private final boolean atMostOnce;
    private final HandlerFailures failures;
    /** Told when deliveries of a slot have ended, so that a revoked slot can be let go and the puller woken. */
    private final Consumer<PullSlot> ended;

    PullSettlement(String id, TopicDefinition topic, SlotCalls calls, RmqMetrics metrics, ConsumerEvents events,
                   HandlerFailures failures, Consumer<PullSlot> ended) {
        this.failures = failures;
        this.id = id;
        this.topic = topic;
        this.calls = calls;
        this.metrics = metrics;
        this.events = events;
        this.atMostOnce = topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE;
        this.ended = ended;
    }

    TopicDefinition topic() {
        return topic;
    }

    /** Ends one delivery. */
    AckOutcome settle(PulledDelivery<T> delivery, AckCall.Op op, String reason) {
        return settleAll(List.of(delivery), op, reason).get(0);
    }

    /**
     * Ends deliveries of one slot in one call. One whose lease ran out first gets {@link AckOutcome#STALE} when
     * several are ended, and a {@link LeaseExpiredException} when it is ended alone.
     */
    List<AckOutcome> settleAll(List<PulledDelivery<T>> deliveries, AckCall.Op op, String reason) {
        PullSlot state = deliveries.get(0).pullSlot();
        for (PulledDelivery<T> delivery : deliveries) {
            if (!delivery.claim()) {
                throw new IllegalStateException("message '" + delivery.key() + "' of " + state.keys.hashTag()
                        + " was already ended");
            }
        }
        try {
            if (atMostOnce) {
                return settleAtMostOnce(deliveries, op, reason);
            }
            long now = System.nanoTime();
            List<AckCall.Ack> acks = new ArrayList<>();
            List<AckOutcome> outcomes = new ArrayList<>();
            for (PulledDelivery<T> delivery : deliveries) {
                boolean expired = delivery.leaseEndsNanos() - now <= 0;
                outcomes.add(expired ? AckOutcome.STALE : null);
                if (!expired) {
                    acks.add(new AckCall.Ack(op, delivery.key(), delivery.token(), reason));
                }
            }
            if (deliveries.size() == 1 && outcomes.get(0) == AckOutcome.STALE) {
                throw leaseExpired(deliveries.get(0), "its lease ended " + TimeUnit.NANOSECONDS.toMillis(
                        now - deliveries.get(0).leaseEndsNanos()) + " ms ago");
            }
            List<AckOutcome> replied = acks.isEmpty() ? List.of() : acknowledge(state, acks, deliveries);
            int next = 0;
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i) == null) {
                    outcomes.set(i, replied.get(next++));
                }
                report(deliveries.get(i), op, outcomes.get(i), reason);
            }
            if (deliveries.size() == 1 && outcomes.get(0) == AckOutcome.STALE) {
                throw leaseExpired(deliveries.get(0), "its lease ran out and it was recovered before the acknowledgement");
            }
            return outcomes;
        } finally {
            for (PulledDelivery<T> delivery : deliveries) {
                state.outstanding.remove(delivery);
            }
            ended.accept(state);
        }
    }

    private List<AckOutcome> acknowledge(PullSlot state, List<AckCall.Ack> acks, List<PulledDelivery<T>> deliveries) {
        try {
            return calls.ack(state.keys, state.fence, acks);
        } catch (SlotFencedException e) {
            throw leaseExpired(deliveries.get(0), "its slot was taken over by another consumer ("
                    + deliveries.size() + " message(s) not acknowledged)");
        }
        // any other failure leaves the outcome unknown: the deliveries may be ended or not; their leases settle it
    }

    private List<AckOutcome> settleAtMostOnce(List<PulledDelivery<T>> deliveries, AckCall.Op op, String reason) {
        List<AckOutcome> outcomes = new ArrayList<>();
        for (PulledDelivery<T> delivery : deliveries) {
            if (op == AckCall.Op.COMMIT) {
                outcomes.add(AckOutcome.COMMITTED);
            } else {
                failures.failed(delivery, null, reason, AckOutcome.GONE, false);
                outcomes.add(AckOutcome.GONE);
            }
            metrics.consumed(topic, resultOf(op), System.nanoTime() - delivery.deliveredNanos());
        }
        return outcomes;
    }

    private void report(PulledDelivery<T> delivery, AckCall.Op op, AckOutcome outcome, String reason) {
        if (op != AckCall.Op.RELEASE) {
            metrics.consumed(topic, resultOf(op), System.nanoTime() - delivery.deliveredNanos());
        }
        metrics.acknowledged(topic, outcome);
        events.emit(() -> new RmqEvent.Acknowledged(Instant.now(), topic.name(), delivery.slot(), id, delivery.key(),
                outcome, reason == null ? "" : reason));
    }

    private static ConsumeResult.Outcome resultOf(AckCall.Op op) {
        return switch (op) {
            case COMMIT, RELEASE -> ConsumeResult.Outcome.SUCCESS;
            case ROLL_BACK, RETRY_NOW -> ConsumeResult.Outcome.RETRY;
            case DEAD, UNDECODABLE -> ConsumeResult.Outcome.DEAD;
        };
    }

    /** Extends one delivery's lease; returns its new token. */
    long extend(PulledDelivery<?> delivery, Duration duration) {
        if (delivery.isSettled()) {
            throw new IllegalStateException("message '" + delivery.key() + "' was already ended; its lease is over");
        }
        if (atMostOnce) {
            return 0;
        }
        long now = System.nanoTime();
        if (delivery.leaseEndsNanos() - now <= 0) {
            throw leaseExpired(delivery, "its lease ended " + TimeUnit.NANOSECONDS.toMillis(now
                    - delivery.leaseEndsNanos()) + " ms ago");
        }
        PullSlot state = delivery.pullSlot();
        long renewed;
        try {
            renewed = calls.extend(state.keys, state.fence, duration,
                    List.of(new ExtendCall.Lease(delivery.key(), delivery.token()))).get(0);
        } catch (SlotFencedException e) {
            throw leaseExpired(delivery, "its slot was taken over by another consumer");
        }
        if (renewed == 0) {
            throw leaseExpired(delivery, "its lease ran out and it was recovered");
        }
        delivery.token(renewed);
        delivery.leaseEndsNanos(now + duration.toNanos());
        return renewed;
    }

    private LeaseExpiredException leaseExpired(PulledDelivery<?> delivery, String why) {
        return new LeaseExpiredException(topic.name(), delivery.slot(), delivery.key(), delivery.attempt(), why,
                topic.leaseTimeout());
    }
}
