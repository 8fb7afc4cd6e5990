package dev.rmq.internal.consumer;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps leases alive while a batch handler runs or an asynchronous handler's result is pending: the worker's thread
 * is busy then, so one timer thread per container extends them every half lease. Its thread is made at the first
 * watch and ends when the container stops.
 */
final class LeaseTimer {

    /** How long closing a watch waits for an extension in progress, whose call may hang on an unreachable Redis. */
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final String name;
    private ScheduledThreadPoolExecutor timer;

    LeaseTimer(String name) {
        this.name = name;
    }

    /**
     * Extends the leases of {@code deliveries} every {@code periodNanos}, the first time {@code firstNanos} from now,
     * until the watch is closed.
     */
    Watch watch(SlotState state, List<? extends Delivery<?>> deliveries, LeaseKeeper leases, WorkerControl control,
                long firstNanos, long periodNanos) {
        Watch watch = new Watch(state, List.copyOf(deliveries), leases, control);
        watch.future = timer().scheduleWithFixedDelay(watch::extend, Math.max(0, firstNanos), periodNanos,
                TimeUnit.NANOSECONDS);
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

    /** Ends the timer's thread, once no worker can ask for a watch any more; a later start makes a new one. */
    synchronized void shutdown() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /** The leases of one call, kept alive until {@link #close()}. */
    static class Watch implements AutoCloseable {

        /** A watch for a call whose deliveries hold no leases. */
        static final Watch NONE = new Watch(null, List.of(), null, null) {
            @Override
            public void close() {
            }
        };

        private final SlotState state;
        private final List<? extends Delivery<?>> deliveries;
        private final LeaseKeeper leases;
        private final WorkerControl control;
        /** Held while an extension runs, so that closing waits for the one in progress. */
        private final ReentrantLock extending = new ReentrantLock();
        private volatile boolean closed;
        private volatile long lastExtendedNanos;
        /** Set once scheduled; the first extension may run before, when it is due at once. */
        private volatile ScheduledFuture<?> future;

        private Watch(SlotState state, List<? extends Delivery<?>> deliveries, LeaseKeeper leases,
                      WorkerControl control) {
            this.state = state;
            this.deliveries = deliveries;
            this.leases = leases;
            this.control = control;
        }

        private void extend() {
            extending.lock();
            try {
                if (closed) {
                    return;
                }
                switch (leases.extendAll(state, deliveries, control)) {
                    case RENEWED -> lastExtendedNanos = System.nanoTime();
                    // the slot is lost: its acknowledgements will be refused, and renewing cannot help
                    case FENCED -> {
                        ScheduledFuture<?> scheduled = future;
                        closed = true;
                        if (scheduled != null) {
                            scheduled.cancel(false);
                        }
                    }
                    case FAILED -> {
                        // tried again at the next period
                    }
                }
            } finally {
                extending.unlock();
            }
        }

        /** When the timer last renewed the leases, 0 if it never did. */
        long lastExtendedNanos() {
            return lastExtendedNanos;
        }

        /** Stops the extensions; once it returns, none is running, so the deliveries' tokens are final. */
        @Override
        public void close() {
            closed = true;
            ScheduledFuture<?> scheduled = future;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            // a stop's interrupt must not cut this wait short: the acknowledgements after it need the final tokens
            boolean interrupted = Thread.interrupted();
            try {
                if (extending.tryLock(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    extending.unlock();
                }
                // else Redis holds the extension: the acknowledgement may quote a token just replaced, and is stale
            } catch (InterruptedException e) {
                interrupted = true;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
