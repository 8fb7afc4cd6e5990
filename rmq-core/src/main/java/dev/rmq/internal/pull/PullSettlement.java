package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.internal.slot.Ending;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.topic.TopicDefinition;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How the program ends the deliveries of one topic of a puller, from any thread: in one call per slot session, with
 * the consume timer running from the handout. A delivery whose lease has run out is not acknowledged: the program
 * learns so, since another consumer may have it by then.
 */
final class PullSettlement<T> {

    private final TopicDefinition topic;
    private final RmqMetrics metrics;

    PullSettlement(TopicDefinition topic, RmqMetrics metrics) {
        this.topic = topic;
        this.metrics = metrics;
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
        SlotSession<T> session = deliveries.get(0).session();
        for (int i = 0; i < deliveries.size(); i++) {
            PulledDelivery<T> delivery = deliveries.get(i);
            if (!delivery.claim()) {
                // all or none: those claimed so far were not sent, and may still be ended
                deliveries.subList(0, i).forEach(PulledDelivery::unclaim);
                throw new IllegalStateException("message '" + delivery.key() + "' of " + session.keys.hashTag()
                        + " was already ended");
            }
        }
        return endClaimed(deliveries, op, reason);
    }

    /** Hands back, unstarted, those of a slot's deliveries that no other thread ends first, in one call. */
    void releaseUnended(List<PulledDelivery<T>> deliveries) {
        List<PulledDelivery<T>> claimed = deliveries.stream().filter(PulledDelivery::claim).toList();
        if (!claimed.isEmpty()) {
            endClaimed(claimed, AckCall.Op.RELEASE, "");
        }
    }

    /** Ends deliveries of one slot that this thread claimed, and forgets them whatever the call came to. */
    private List<AckOutcome> endClaimed(List<PulledDelivery<T>> claimed, AckCall.Op op, String reason) {
        SlotSession<T> session = claimed.get(0).session();
        try {
            return endAll(session, claimed, op, reason);
        } finally {
            session.forget(claimed);
        }
    }

    private List<AckOutcome> endAll(SlotSession<T> session, List<PulledDelivery<T>> deliveries, AckCall.Op op,
                                    String reason) {
        long now = System.nanoTime();
        List<Ending> endings = new ArrayList<>();
        List<AckOutcome> outcomes = new ArrayList<>();
        for (PulledDelivery<T> delivery : deliveries) {
            boolean expired = delivery.leaseOver(now);
            if (expired && cancelledBefore(delivery)) {
                outcomes.add(AckOutcome.CANCELLED);
                continue;
            }
            outcomes.add(expired ? AckOutcome.STALE : null);
            if (expired) {
                session.expiredBeforeEnding(delivery, reason);
            } else {
                endings.add(Ending.of(op, delivery, reason, null));
            }
        }
        if (deliveries.size() == 1 && outcomes.get(0) == AckOutcome.STALE) {
            throw leaseExpired(deliveries.get(0), "its lease ended " + TimeUnit.NANOSECONDS.toMillis(
                    now - deliveries.get(0).leaseEndsNanos()) + " ms ago");
        }
        List<AckOutcome> replied = endings.isEmpty() ? List.of() : end(session, endings, deliveries);
        int next = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == null) {
                outcomes.set(i, replied.get(next++));
            }
            if (op != AckCall.Op.RELEASE) {
                metrics.consumed(topic, resultOf(op), System.nanoTime() - deliveries.get(i).deliveredNanos());
            }
        }
        if (deliveries.size() == 1 && outcomes.get(0) == AckOutcome.STALE) {
            throw leaseExpired(deliveries.get(0), "its lease ran out and it was recovered before the acknowledgement");
        }
        return outcomes;
    }

    /**
     * Whether a delivery whose lease is over was cancelled while in flight, so that its ending says so rather than
     * that it will be delivered again. Asks Redis (one read) while the cancel's mark is kept; when Redis does not
     * answer, the lease's end is all that is known.
     */
    private static boolean cancelledBefore(PulledDelivery<?> delivery) {
        try {
            return delivery.cancelled();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private List<AckOutcome> end(SlotSession<T> session, List<Ending> endings, List<PulledDelivery<T>> deliveries) {
        try {
            return session.end(endings);
        } catch (SlotFencedException e) {
            throw leaseExpired(deliveries.get(0), "its slot was taken over by another consumer ("
                    + deliveries.size() + " message(s) not acknowledged)");
        }
        // any other failure leaves the outcome unknown: the deliveries may be ended or not; their leases settle it
    }

    private static ConsumeResult.Outcome resultOf(AckCall.Op op) {
        return switch (op) {
            case COMMIT, RELEASE -> ConsumeResult.Outcome.SUCCESS;
            case HAND_BACK -> ConsumeResult.Outcome.RELEASE;
            case ROLL_BACK, RETRY_NOW -> ConsumeResult.Outcome.RETRY;
            case DEAD, UNDECODABLE, UNDECRYPTABLE -> ConsumeResult.Outcome.DEAD;
        };
    }

    /** Extends one delivery's lease; returns its new token. */
    long extend(PulledDelivery<T> delivery, Duration duration) {
        return onLease(delivery, "extend", "its lease is not extended",
                () -> delivery.session().extendOne(delivery, duration));
    }

    /** Records one delivery's progress, lengthening its lease unless {@code lease} is null; returns its token. */
    long reportProgress(PulledDelivery<T> delivery, int percent, String note, @Nullable Duration lease) {
        return onLease(delivery, "record progress on", "no progress is recorded",
                () -> delivery.session().reportProgress(delivery, percent, note, lease));
    }

    /**
     * Runs {@code call}, a script call on a delivery's lease that answers its token, once the delivery is known to
     * hold its lease still; {@code what} the call does, and its {@code consequence} when it cannot.
     */
    private long onLease(PulledDelivery<T> delivery, String what, String consequence, LongSupplier call) {
        if (delivery.isSettled()) {
            throw new IllegalStateException("message '" + delivery.key() + "' was already ended; its lease is over");
        }
        if (!delivery.session().leased()) {
            throw new IllegalStateException("message '" + delivery.key() + "' of at-most-once topic " + topic.name()
                    + " left Redis when it was taken: it holds no lease to " + what);
        }
        long now = System.nanoTime();
        if (delivery.leaseOver(now)) {
            throw leaseExpired(delivery, "its lease ended " + TimeUnit.NANOSECONDS.toMillis(now
                    - delivery.leaseEndsNanos()) + " ms ago");
        }
        long token;
        try {
            token = call.getAsLong();
        } catch (SlotFencedException e) {
            throw leaseExpired(delivery, "its slot was taken over by another consumer");
        }
        if (token == ExtendCall.CANCELLED) {
            throw new MessageCancelledException("message '" + delivery.key() + "' of topic " + topic.name()
                    + " was cancelled while in flight: " + consequence + ", and its ending changes nothing");
        }
        if (token == 0) {
            throw leaseExpired(delivery, "its lease ran out and it was recovered");
        }
        return token;
    }

    private LeaseExpiredException leaseExpired(PulledDelivery<?> delivery, String why) {
        return new LeaseExpiredException(topic.name(), delivery.slot(), delivery.key(), delivery.attempt(), why,
                topic.leaseTimeout());
    }
}
