package dev.rmq.internal.consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Faults of a consumer worker's own loop, outside every handler (a handler's failure is the message's, and is
 * logged with it): each is logged at ERROR, at most once every ten seconds, with how many came since the last line.
 * The worker goes on after {@link #PAUSE_MS}, so that a fault that repeats does not spin. Used by the worker's thread
 * only.
 */
final class LoopFaults {

    /** The pause after a fault. */
    static final long PAUSE_MS = 1_000;
    private static final long LOG_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Logger log = LoggerFactory.getLogger(SlotWorker.class);

    private final String worker;
    private long loggedNanos;
    private int unlogged;

    LoopFaults(String worker) {
        this.worker = worker;
    }

    /** A fault of the worker's loop, which holds {@code slots} slots, and goes on unless it is stopping. */
    void report(Throwable e, int slots, boolean goesOn) {
        long now = System.nanoTime();
        if (loggedNanos != 0 && now - loggedNanos < LOG_NANOS) {
            unlogged++;
            return;
        }
        log.error("consumer worker {} ({} slot(s)) failed outside its handlers{}; it {}", worker, slots,
                unlogged > 0 ? " (and " + unlogged + " time(s) more since the last report)" : "",
                goesOn ? "goes on in " + PAUSE_MS + " ms" : "stops", e);
        loggedNanos = now;
        unlogged = 0;
    }
}
