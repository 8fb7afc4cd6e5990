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
 * without asking for it (a synchronous handler's message, whose lease is its time limit). One timer thread per
 * container does it for all its workers; it is made at the first batch and ends when the container stops.
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
     * {@code leaseStartNanos}, until the watch is closed. At most once, there are no leases, and nothing is done.
     *
     * @param unwatched the delivery whose lease is left to run out while its handler runs; null for none
     */
    public Watch keep(SlotSession<?> session, long leaseStartNanos, Supplier<@Nullable Delivery<?>> unwatched) {
        if (!session.owner().guarantee().leased()) {
            return Watch.NONE;
        }
        long half = session.topic().leaseTimeout().toNanos() / 2;
        Watch watch = new Watch(session, unwatched);
        // at a fixed rate, not with a fixed delay: a slow call must not put every later renewal off by its time
        watch.future = timer().scheduleAtFixedRate(watch::renew,
                Math.max(0, leaseStartNanos + half - System.nanoTime()), half, TimeUnit.NANOSECONDS);
        return watch;
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
    public static class Watch implements AutoCloseable {

        /** A watch of a batch that holds no leases. */
        static final Watch NONE = new Watch(null, () -> null) {
            @Override
            public void close() {
            }
        };

        /** Null for {@link #NONE}, which is never scheduled. */
        private final @Nullable SlotSession<?> session;
        private final Supplier<@Nullable Delivery<?>> unwatched;
        private volatile boolean closed;
        /** Set once scheduled; the first renewal may run before, when it is due at once. */
        private volatile @Nullable ScheduledFuture<?> future;

        private Watch(@Nullable SlotSession<?> session, Supplier<@Nullable Delivery<?>> unwatched) {
            this.session = session;
            this.unwatched = unwatched;
        }

        private void renew() {
            SlotSession<?> watched = session;
            if (closed || watched == null) {
                return;
            }
            Delivery<?> left = unwatched.get();
            List<Delivery<?>> renewed = new ArrayList<>();
            for (Delivery<?> delivery : watched.outstanding()) {
                if (delivery != left && delivery.renewable()) {
                    renewed.add(delivery);
                }
            }
            // the slot is lost: its endings will be refused, and renewing cannot help
            if (!renewed.isEmpty() && watched.renew(renewed) == Renewal.FENCED) {
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
