package dev.rmq.internal.consumer;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.slot.Batch;
import dev.rmq.internal.slot.Delivery;
import dev.rmq.internal.slot.Ending;
import dev.rmq.internal.slot.LeaseKeeper;
import dev.rmq.internal.slot.SlotSession;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs one polled batch of one slot session: has its {@link Invoker} run the handler on each message, one after
 * another (or on all of them at once, for a batch handler), and gathers the endings in the session, which sends them
 * in one call at the end. The {@link LeaseKeeper} renews the leases of the batch meanwhile. Before each handler the
 * runner makes sure the worker may still start one: when the slot is being let go, the stop's deadline has passed,
 * the thread was interrupted, the slot turns out to be lost, or (at most once) the batch's deadline has passed, it
 * hands the rest back unstarted. When half a lease has passed since the last endings went out, it sends those
 * gathered, so that a long batch commits as it goes.
 *
 * @param <T> the payload type
 */
final class BatchRunner<T> {

    private final Invoker<T> invoker;
    /** Whether one call of the handler takes all that is left of a poll. */
    private final boolean batch;
    private final LeaseKeeper leases;

    BatchRunner(Invoker<T> invoker, LeaseKeeper leases) {
        this.invoker = invoker;
        this.batch = invoker.takesBatch();
        this.leases = leases;
    }

    /** The keeper that renews the leases of the batches in hand. */
    LeaseKeeper leases() {
        return leases;
    }

    /** Runs the batch; false when the slot turned out to be lost, which the caller must then let go. */
    boolean run(SlotSession<T> session, Batch<T> polled, WorkerControl control) {
        List<Delivery<T>> deliveries = polled.deliveries();
        control.inHand(deliveries.size());
        Call call = new Call(control, deliveries);
        try (LeaseKeeper.Watch ignored = leases.keep(session, polled.receivedNanos(), call::unwatched,
                call::unstarted)) {
            runAll(session, polled, call);
            // an interrupt was meant for the handler; the endings of what finished must still be sent
            call.control.clearInterruptForEndings();
            return control.carries(session) ? !session.lost() : session.flush();
        } finally {
            // endings held for the slot's next poll keep their deliveries out, so that the keeper renews their leases
            session.forgetOutstanding();
            control.inHand(session.gathered());
        }
    }

    private void runAll(SlotSession<T> session, Batch<T> polled, Call call) {
        List<Delivery<T>> deliveries = polled.deliveries();
        long flushEveryNanos = session.topic().leaseTimeout().toNanos() / 2;
        long flushedNanos = polled.receivedNanos();
        // the delivery whose lease the keeper left alone while its handler ran, until its ending goes out
        Delivery<T> ranUnrenewed = null;
        int i = 0;
        while (i < deliveries.size()) {
            List<Delivery<T>> rest = deliveries.subList(i, deliveries.size());
            // a long batch must not keep other slots' endings past their hold
            call.control.sendHeldEndings();
            long now = System.nanoTime();
            if (session.gathered() > 0 && (now - flushedNanos > flushEveryNanos || (ranUnrenewed != null
                    && ranUnrenewed.leaseEndsBefore(nextRenewalNanos(polled.receivedNanos(), flushEveryNanos, now)
                    + flushEveryNanos / 2)))) {
                session.flush();
                flushedNanos = now;
                ranUnrenewed = null;
            }
            if (call.control.mustLetGo(session) || session.lost()
                    || (session.fenceUnconfirmed(now) && !session.confirmFence())) {
                rest.forEach(session::gatherUnstarted);
                return;
            }
            // at most once, a new owner may poll the slot once the batch's deadline is over: what is left goes back
            if (rest.get(0).holdOver(System.nanoTime())) {
                session.outlivedHold(rest.size());
                rest.forEach(session::gatherUnstarted);
                return;
            }
            // how many of the rest this call settles: the first, or all of them
            int step = batch ? rest.size() : 1;
            List<Delivery<T>> taken = batch ? live(rest) : List.of(rest.get(0));
            // a lease already over (the JVM paused since the last check) may have gone to another consumer
            if (taken.isEmpty() || taken.get(0).leaseLost() || taken.get(0).leaseOver(System.nanoTime())) {
                i += step;
                continue;
            }
            for (Delivery<T> delivery : taken) {
                delivery.reportLateness(polled);
            }
            call.running = taken.get(0);
            call.next = i + step;
            List<Invoker.Handled> handled = invoker.invoke(taken, call);
            call.running = null;
            call.control.clearStrayInterrupt();
            // the keeper renews the others of the batch; this one's lease may end before the next renewal
            ranUnrenewed = taken.get(0);
            if (!gather(session, taken, handled)) {
                // the stop cut a handler off: what was not taken goes back as if never started
                rest.subList(step, rest.size()).forEach(session::gatherUnstarted);
                return;
            }
            i += step;
        }
    }

    /**
     * Gathers the outcomes of one call for the next flush. Returns false when the stop cut the call off: its messages
     * go back as if never started where the guarantee allows it.
     */
    private boolean gather(SlotSession<T> session, List<Delivery<T>> taken, List<Invoker.Handled> handled) {
        boolean cutOff = false;
        for (int j = 0; j < taken.size(); j++) {
            Invoker.Handled outcome = handled.get(j);
            Delivery<T> delivery = taken.get(j);
            switch (outcome.kind()) {
                case DONE -> {
                    ConsumeResult result = Objects.requireNonNull(outcome.result(), "a done outcome has a result");
                    session.gather(Ending.of(opFor(result), delivery, result.reason(), outcome.cause()));
                }
                case UNSTARTED -> session.gatherUnstarted(delivery);
                case CUT_OFF -> {
                    cutOff = true;
                    session.gatherCutOff(delivery);
                }
            }
        }
        return !cutOff;
    }

    /**
     * When the {@link LeaseKeeper} next renews the batch's leases: every half lease from the poll. A handler's own
     * lease is not renewed while it runs, so its ending, gathered, may hold a lease that ends before that renewal (or
     * too close to it for the renewal to land in time); such an ending goes out before the next handler starts.
     */
    private static long nextRenewalNanos(long startNanos, long halfLeaseNanos, long nowNanos) {
        return startNanos + ((nowNanos - startNanos) / halfLeaseNanos + 1) * halfLeaseNanos;
    }

    /** The deliveries whose lease is neither lost nor over. */
    private static <T> List<Delivery<T>> live(List<Delivery<T>> deliveries) {
        List<Delivery<T>> live = new ArrayList<>(deliveries.size());
        long now = System.nanoTime();
        for (Delivery<T> delivery : deliveries) {
            if (!delivery.leaseLost() && !delivery.leaseOver(now)) {
                live.add(delivery);
            }
        }
        return live;
    }

    /** The worker's side of one handler call: its control, and whether the call's leases are renewed. */
    private static final class Call implements Invoker.Call {

        private final WorkerControl control;
        private final List<? extends Delivery<?>> deliveries;
        /** The first message of the call in progress; null between calls. */
        private volatile @Nullable Delivery<?> running;
        /** The index of the first delivery of the batch no handler has started. */
        private volatile int next;
        private volatile boolean kept;

        Call(WorkerControl control, List<? extends Delivery<?>> deliveries) {
            this.control = control;
            this.deliveries = deliveries;
        }

        @Override
        public WorkerControl control() {
            return control;
        }

        @Override
        public Kept keepLeases() {
            kept = true;
            return () -> kept = false;
        }

        /** The delivery whose lease the keeper leaves to run out now: a running call's that did not ask to keep it. */
        @Nullable Delivery<?> unwatched() {
            return kept ? null : running;
        }

        /** The deliveries of the batch no handler has started, which at most once hold the slot by its deadline. */
        List<? extends Delivery<?>> unstarted() {
            return deliveries.subList(Math.min(next, deliveries.size()), deliveries.size());
        }
    }

    private static AckCall.Op opFor(ConsumeResult result) {
        return switch (result.outcome()) {
            case SUCCESS -> AckCall.Op.COMMIT;
            case RETRY -> result.immediate() ? AckCall.Op.RETRY_NOW : AckCall.Op.ROLL_BACK;
            case DEAD -> AckCall.Op.DEAD;
            case RELEASE -> AckCall.Op.HAND_BACK;
        };
    }
}
