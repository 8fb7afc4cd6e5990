package dev.rmq.internal.consumer;

import org.slf4j.Logger;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A WARN line for a kind of failure that may repeat for every message: the first at once, then at most one
 * every {@value #INTERVAL_SECONDS} s, saying how many were not logged in between.
 */
final class FailureLog {

    static final long INTERVAL_SECONDS = 10;

    private final Logger log;
    private final AtomicLong nextNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong unlogged = new AtomicLong();

    FailureLog(Logger log) {
        this.log = log;
    }

    /** Logs {@code format} with {@code args} unless a line went out less than the interval ago. */
    void warn(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if (now - next < 0 || !nextNanos.compareAndSet(next, now + TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS))) {
            unlogged.incrementAndGet();
            return;
        }
        long skipped = unlogged.getAndSet(0);
        if (!log.isWarnEnabled()) {
            return;
        }
        String line = skipped == 0 ? format : format + " (" + skipped + " more like it in the last "
                + INTERVAL_SECONDS + " s)";
        log.warn(line, args);
    }
}
