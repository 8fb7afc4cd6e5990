package dev.rmq.internal.consumer;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.consumer.ConsumeResult;
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
 * Handles one polled batch of one slot: decodes the messages, has its {@link Invoker} run the handler on each, one
 * after another (or on all of them at once, for a batch handler), and acknowledges them in one call at the end. Before each handler it makes sure the worker may still run
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
    private final Invoker<T> invoker;
    /** Whether one call of the handler takes all that is left of a poll. */
    private final boolean batch;
    private final PayloadCodec codec;
    private final Type payloadType;
    private final Settlement acks;
    private final LeaseKeeper leases;
    private final LeaseTimer timer;
    private final RmqMetrics metrics;
    /** When the leases of the batch in hand were last taken or renewed; touched by the worker's thread only. */
    private long leaseStart;

    BatchRunner(TopicDefinition topic, Invoker<T> invoker, PayloadCodec codec, Type payloadType, Settlement acks,
                LeaseKeeper leases, LeaseTimer timer, RmqMetrics metrics) {
        this.topic = topic;
        this.invoker = invoker;
        this.batch = invoker.takesBatch();
        this.codec = codec;
        this.payloadType = payloadType;
        this.acks = acks;
        this.leases = leases;
        this.timer = timer;
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
        leaseStart = System.nanoTime();
        Call call = new Call(state, control, deliveries);
        int i = 0;
        while (i < deliveries.size()) {
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
                call.unacknowledgedFrom = i;
                // the ack just sent checked the fence; only the leases, or a fence it did not check, need a call
                if (leaseHalfGone || fenceUnconfirmed(state, System.nanoTime())) {
                    if (leases.extendAll(state, rest, control) == LeaseKeeper.Renewal.FENCED) {
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
            // how many of the rest this call settles: the first, or all of them
            int step = batch ? rest.size() : 1;
            List<Delivery<T>> taken = batch ? live(rest) : List.of(rest.get(0));
            if (taken.isEmpty() || taken.get(0).leaseLost()) {
                i += step;
                continue;
            }
            for (Delivery<T> delivery : taken) {
                reportLateness(delivery, poll);
            }
            List<Invoker.Handled> handled = invoker.invoke(taken, call);
            call.ended();
            if (!settle(taken, handled)) {
                // the stop cut a handler off: what was not taken goes back as if never started
                releaseUnstarted(rest.subList(step, rest.size()));
                break;
            }
            i += step;
        }
        // an interrupt was meant for the handler; the acknowledgement of what finished must still be sent
        Thread.interrupted();
        return acks.flush(state, control);
    }

    /**
     * Gathers the outcomes of one call for the next flush. Returns false when the stop cut the call off: at least
     * once, its messages go back as if never started; at most once they had started, so they are lost rather than
     * delivered a second time.
     */
    private boolean settle(List<Delivery<T>> taken, List<Invoker.Handled> handled) {
        boolean cutOff = false;
        for (int j = 0; j < taken.size(); j++) {
            Invoker.Handled outcome = handled.get(j);
            Delivery<T> delivery = taken.get(j);
            switch (outcome.kind()) {
                case DONE -> acks.add(opFor(outcome.result()), delivery, outcome.result().reason(), outcome.cause());
                case UNSTARTED -> acks.add(AckCall.Op.RELEASE, delivery, "", null);
                case CUT_OFF -> {
                    cutOff = true;
                    if (acks.leased()) {
                        acks.add(AckCall.Op.RELEASE, delivery, "", null);
                    } else {
                        acks.add(AckCall.Op.ROLL_BACK, delivery, "interrupted by the consumer's stop", null);
                    }
                }
            }
        }
        return !cutOff;
    }

    /** The deliveries whose lease is not lost. */
    private static <T> List<Delivery<T>> live(List<Delivery<T>> deliveries) {
        List<Delivery<T>> live = new ArrayList<>(deliveries.size());
        for (Delivery<T> delivery : deliveries) {
            if (!delivery.leaseLost()) {
                live.add(delivery);
            }
        }
        return live;
    }

    /** The worker's side of one handler call: its control, and a timer on the leases of a long call. */
    private final class Call implements Invoker.Call {

        private final SlotState state;
        private final WorkerControl control;
        private final List<Delivery<T>> deliveries;
        /** Where the deliveries whose acknowledgement has not been sent start. */
        int unacknowledgedFrom;
        /** The watch of the call in progress, if it asked for one. */
        private LeaseTimer.Watch last;

        Call(SlotState state, WorkerControl control, List<Delivery<T>> deliveries) {
            this.state = state;
            this.control = control;
            this.deliveries = deliveries;
        }

        @Override
        public WorkerControl control() {
            return control;
        }

        @Override
        public LeaseTimer.Watch watchLeases() {
            if (!acks.leased()) {
                return LeaseTimer.Watch.NONE;
            }
            long half = topic.leaseTimeout().toNanos() / 2;
            // a done delivery's acknowledgement quotes its token when it is sent, so renewing it meanwhile is safe
            last = timer.watch(state, live(deliveries.subList(unacknowledgedFrom, deliveries.size())), leases, control,
                    leaseStart + half - System.nanoTime(), half);
            return last;
        }

        /** After a call: a lease the timer renewed during it starts the next half-lease wait afresh. */
        void ended() {
            if (last != null && last.lastExtendedNanos() != 0) {
                leaseStart = last.lastExtendedNanos();
            }
            last = null;
        }
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

    private static AckCall.Op opFor(ConsumeResult result) {
        return switch (result.outcome()) {
            case SUCCESS -> AckCall.Op.COMMIT;
            case RETRY -> result.immediate() ? AckCall.Op.RETRY_NOW : AckCall.Op.ROLL_BACK;
            case DEAD -> AckCall.Op.DEAD;
        };
    }
}
