package dev.rmq.internal.consumer;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Handles one polled batch of one slot: decodes the messages, runs the handler on each, one after another,
 * and acknowledges them in one call at the end. Before each handler it makes sure the worker may still run
 * one: when the slot is being let go, the stop's deadline has passed or the thread was interrupted, it hands
 * the rest back unstarted. When half the lease is gone, or the fencing token has not been confirmed for a
 * while, it acknowledges what is done and extends the rest. Outcomes go to its {@link Settlement}: Redis
 * acknowledgements for an at-least-once topic; for an at-most-once one, whose messages left Redis when taken,
 * only the hand-back of what a stop left unstarted.
 *
 * @param <T> the payload type
 */
final class BatchRunner<T> {

    /**
     * A fenced worker re-checks its token before a handler when this long has passed since Redis last
     * confirmed it, so a worker resuming from a long pause cannot start a message after losing its slot.
     */
    private static final long FENCE_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TopicDefinition topic;
    private final RmqHandler<T> handler;
    private final PayloadCodec codec;
    private final Type payloadType;
    private final Settlement acks;
    private final RmqErrorHandler errorHandler;
    private final LeaseKeeper leases;
    private final RmqMetrics metrics;

    BatchRunner(TopicDefinition topic, RmqHandler<T> handler, PayloadCodec codec, Type payloadType, Settlement acks,
                LeaseKeeper leases, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
        this.topic = topic;
        this.handler = handler;
        this.codec = codec;
        this.payloadType = payloadType;
        this.acks = acks;
        this.leases = leases;
        this.metrics = metrics;
    }

    /** Runs the batch; false when the slot turned out to be lost, which the caller must then let go. */
    boolean run(SlotState state, SlotCalls.Poll poll, WorkerControl control) {
        control.inHand(poll.polled().messages().size());
        try {
            return runBatch(state, poll, control);
        } finally {
            control.inHand(acks.pending());
        }
    }

    private boolean runBatch(SlotState state, SlotCalls.Poll poll, WorkerControl control) {
        long token = poll.polled().token();
        List<Delivery<T>> deliveries = new ArrayList<>();
        for (PrepareCall.Message message : poll.polled().messages()) {
            try {
                deliveries.add(decode(state, message, token));
            } catch (MalformedEnvelopeException | PayloadCodecException e) {
                acks.addUndecodable(message.key(), token, "cannot decode: " + e.getMessage());
            }
        }
        long leaseNanos = topic.leaseTimeout().toNanos();
        long leaseStart = System.nanoTime();
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery<T> delivery = deliveries.get(i);
            List<Delivery<T>> rest = deliveries.subList(i, deliveries.size());
            if (control.mustLetGo(state)) {
                releaseUnstarted(rest);
                break;
            }
            long now = System.nanoTime();
            boolean leaseHalfGone = now - leaseStart > leaseNanos / 2;
            if (!acks.leased()) {
                // at most once the batch holds no leases; a worker back from a long pause still must not start a
                // message after losing the slot: what it has not started goes back for the new owner
                if (fenceUnconfirmed(state, now) && !leases.confirmFence(state)) {
                    releaseUnstarted(rest);
                    acks.flush(state, control);
                    return false;
                }
            } else if (leaseHalfGone || fenceUnconfirmed(state, now)) {
                if (!acks.flush(state, control)) {
                    return false;
                }
                // the ack just sent checked the fence; only the leases, or a fence it did not check, need a call
                if (leaseHalfGone || fenceUnconfirmed(state, System.nanoTime())) {
                    if (!leases.extendAll(state, rest, control)) {
                        return false;
                    }
                    leaseStart = System.nanoTime();
                }
                // a revoke that came during those calls must stop the batch before the next handler starts
                if (control.mustLetGo(state)) {
                    releaseUnstarted(rest);
                    break;
                }
            }
            if (delivery.leaseLost()) {
                continue;
            }
            reportLateness(delivery, poll);
            Handled handled = invoke(delivery, control);
            if (handled == null) {
                // the stop cut this handler off: at least once, its message goes back as if never started; at most
                // once it had started, so it is lost rather than delivered a second time
                if (acks.leased()) {
                    releaseUnstarted(rest);
                } else {
                    acks.add(AckCall.Op.ROLL_BACK, delivery, "interrupted by the consumer's stop", null);
                    releaseUnstarted(rest.subList(1, rest.size()));
                }
                break;
            }
            acks.add(opFor(handled.result()), delivery, handled.result().reason(), handled.cause());
        }
        // an interrupt was meant for the handler; the acknowledgement of what finished must still be sent
        Thread.interrupted();
        return acks.flush(state, control);
    }

    /** Hands back what a batch has not started, so the next owner gets it without waiting for a lease. */
    private void releaseUnstarted(List<Delivery<T>> rest) {
        for (Delivery<T> delivery : rest) {
            if (!delivery.leaseLost()) {
                acks.add(AckCall.Op.RELEASE, delivery, "", null);
            }
        }
    }

    private static boolean fenceUnconfirmed(SlotState state, long now) {
        return state.isFenced() && now - state.verifiedNanos > FENCE_RECHECK_NANOS;
    }

    @SuppressWarnings("unchecked")
    private Delivery<T> decode(SlotState state, PrepareCall.Message message, long token) {
        Envelope envelope = Envelope.decode(message.envelope());
        T payload = (T) codec.decode(envelope.payload(), payloadType);
        return new Delivery<>(topic.name(), topic.type(), state.slot, message.key(), envelope, message.envelope(), payload,
                token, (delivery, duration) -> acks.leased() ? leases.extendOne(state, delivery, duration) : delivery.token());
    }

    private void reportLateness(Delivery<T> delivery, SlotCalls.Poll poll) {
        delivery.dueTime().ifPresent(due -> {
            long redisNowMs = poll.redisNowMs() + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - poll.receivedNanos());
            metrics.lateness(topic, redisNowMs - due.toEpochMilli());
        });
    }

    /**
     * Runs the handler. Returns null when a stopping container interrupted it: that is not the message's failure,
     * so it costs no attempt.
     */
    private Handled invoke(Delivery<T> delivery, WorkerControl control) {
        long start = System.nanoTime();
        ConsumeResult result;
        Throwable cause = null;
        try {
            result = handler.handle(delivery);
            result = result == null ? ConsumeResult.success() : result;
        } catch (Exception e) {
            if (cutOffByStop(e, control)) {
                return null;
            }
            cause = e;
            result = decide(delivery, e);
        } catch (LinkageError | AssertionError | StackOverflowError e) {
            cause = e;
            result = ConsumeResult.retry(RmqErrorHandler.describe(e));
        }
        metrics.consumed(topic, result.outcome(), System.nanoTime() - start);
        return new Handled(result, cause);
    }

    /** What a handler's ending came to: its result, and the exception it threw, if it threw. */
    private record Handled(ConsumeResult result, Throwable cause) {
    }

    /** The error handler's decision on a handler's exception; a retry when it fails or answers success. */
    private ConsumeResult decide(Delivery<T> delivery, Exception error) {
        try {
            ConsumeResult decided = errorHandler.handle(delivery, error);
            if (decided != null && decided.outcome() != ConsumeResult.Outcome.SUCCESS) {
                return decided;
            }
        } catch (RuntimeException e) {
            error.addSuppressed(e);
        }
        return ConsumeResult.retry(RmqErrorHandler.describe(error));
    }

    /** Whether a handler failed because the stop interrupted it, directly or through a wrapping exception. */
    private static boolean cutOffByStop(Exception e, WorkerControl control) {
        if (!control.stopping()) {
            return false;
        }
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }


    private static AckCall.Op opFor(ConsumeResult result) {
        return switch (result.outcome()) {
            case SUCCESS -> AckCall.Op.COMMIT;
            case RETRY -> result.immediate() ? AckCall.Op.RETRY_NOW : AckCall.Op.ROLL_BACK;
            case DEAD -> AckCall.Op.DEAD;
        };
    }
}
