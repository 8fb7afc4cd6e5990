package dev.rmq.internal.slot;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps the leases of a batch alive, between its handlers and during them: every half lease from the poll, until
 * the batch ends, it renews those of the batch's deliveries that are not ended yet, but the one a handler runs
 * without asking for it (a synchronous handler's message, whose lease is its time limit). At most once, where a
 * batch holds the slot by one deadline instead of leases, it moves that deadline on while messages of the batch
 * wait to start. One timer thread per container does it for all its workers; it is made at the first batch and ends
 * when the container stops.
 */
public final class LeaseKeeper {

    private final String name;
    /** Null until the first batch, and again once shut down. */
    private @Nullable ScheduledThreadPoolExecutor timer;

    public LeaseKeeper(String name) {
        this.name = name;
    }

    /**
     * Renews the leases of what {@code session} has out every half lease, the first time half a lease after
     * {@code leaseStartNanos}, until the watch is closed; at most once, the batch's deadline while {@code unstarted}
     * holds any message.
     *
     * @param unwatched the delivery whose lease is left to run out while its handler runs; null for none
     * @param unstarted at most once, the messages of the batch not started yet
     */
    public Watch keep(SlotSession<?> session, long leaseStartNanos, Supplier<@Nullable Delivery<?>> unwatched,
                      Supplier<List<? extends Delivery<?>>> unstarted) {
        long half = session.topic().leaseTimeout().toNanos() / 2;
        Watch watch = new Watch(session, session.leased() ? () -> renewable(session, unwatched.get()) : unstarted);
        // at a fixed rate, not with a fixed delay: a slow call must not put every later renewal off by its time
        watch.future = timer().scheduleAtFixedRate(watch::renew,
                Math.max(0, leaseStartNanos + half - System.nanoTime()), half, TimeUnit.NANOSECONDS);
        return watch;
    }

    /** The deliveries {@code session} has out whose leases are worth renewing, but {@code left}. */
    private static List<? extends Delivery<?>> renewable(SlotSession<?> session, @Nullable Delivery<?> left) {
        List<Delivery<?>> renewed = new ArrayList<>();
        for (Delivery<?> delivery : session.outstanding()) {
            if (delivery != left && delivery.renewable()) {
                renewed.add(delivery);
            }
        }
        return renewed;
    }

    private synchronized ScheduledExecutorService timer() {
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            });
            timer.setRemoveOnCancelPolicy(true);
        }
        return timer;
    }

    /** Ends the timer's thread, once no worker can open a watch any more; a later start makes a new one. */
    public synchronized void shutdown() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /** The leases of one batch, kept alive until {@link #close()}. */
    public static final class Watch implements AutoCloseable {

        private final SlotSession<?> session;
        /** What is renewed now: none, and no call is made. */
        private final Supplier<List<? extends Delivery<?>>> due;
        private volatile boolean closed;
        /** Set once scheduled; the first renewal may run before, when it is due at once. */
        private volatile @Nullable ScheduledFuture<?> future;

        private Watch(SlotSession<?> session, Supplier<List<? extends Delivery<?>>> due) {
            this.session = session;
            this.due = due;
        }

        private void renew() {
            if (closed) {
                return;
            }
            List<? extends Delivery<?>> renewed = due.get();
            // the slot is lost: its endings will be refused, and renewing cannot help
            if (!renewed.isEmpty() && session.renew(renewed) == Renewal.FENCED) {
                close();
            }
        }

        /** Stops the renewals; one in progress finishes, and the endings sent after it quote its tokens. */
        @Override
        public void close() {
            closed = true;
            ScheduledFuture<?> scheduled = future;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }
}
