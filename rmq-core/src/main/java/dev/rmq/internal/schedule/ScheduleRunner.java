package dev.rmq.internal.schedule;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The thread that makes the schedules' passes: each pass sends what is due and says when the next should come, and
 * the thread sleeps until then (at most a second, so that a pause or a resume elsewhere is seen), or until woken by
 * a new declaration. Started by the first declaration, stopped by {@link #close()}.
 */
final class ScheduleRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScheduleRunner.class);
    private static final long MIN_SLEEP_MS = 5;
    private static final long MAX_SLEEP_MS = 1_000;

    private final Supplier<Instant> pass;
    private final Clock clock;
    private final Object signal = new Object();
    private @Nullable Thread thread;
    private boolean woken;
    private volatile boolean closed;

    ScheduleRunner(Supplier<Instant> pass, Clock clock) {
        this.pass = pass;
        this.clock = clock;
    }

    synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = new Thread(this::run, "rmq-schedules");
        thread.setDaemon(true);
        thread.start();
    }

    /** Makes the next pass come now. */
    void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void run() {
        while (!closed) {
            Instant next;
            try {
                next = pass.get();
            } catch (RuntimeException | LinkageError | AssertionError e) {
                // the thread goes on: ended, it would end every schedule of the client until a restart
                log.warn("a pass over the schedules failed ({}); the next comes in a second", e.toString());
                next = clock.instant().plusSeconds(1);
            }
            long sleep = Math.max(MIN_SLEEP_MS, Math.min(MAX_SLEEP_MS,
                    Duration.between(clock.instant(), next).toMillis()));
            synchronized (signal) {
                try {
                    if (!woken && !closed) {
                        signal.wait(sleep);
                    }
                } catch (InterruptedException e) {
                    return;
                }
                woken = false;
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = thread;
        }
        wake();
        if (running != null) {
            try {
                running.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
