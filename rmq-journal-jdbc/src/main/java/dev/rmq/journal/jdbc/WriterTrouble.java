package dev.rmq.journal.jdbc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What goes wrong for the journal's writer, counted and logged at a bounded rate: rows that found no room or that
 * the database refused (the gap), failed writes, and an outage of the database from its first failure until it
 * answers again.
 */
final class WriterTrouble {

    private static final Logger log = LoggerFactory.getLogger(JournalWriter.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final WhenUnavailable whenUnavailable;
    private final AtomicLong gap = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private long gapLoggedNanos;
    /** Touched by the writer thread only. */
    private long outageStartNanos;
    private long outageLoggedNanos;

    WriterTrouble(WhenUnavailable whenUnavailable) {
        this.whenUnavailable = whenUnavailable;
    }

    /** Counts a row that found no room, and says so at the first and then every 30 s. */
    void dropped(int buffered) {
        long count = gap.incrementAndGet();
        synchronized (gap) {
            long now = System.nanoTime();
            if (count == 1 || now - gapLoggedNanos > LOG_EVERY_NANOS) {
                gapLoggedNanos = now;
                log.warn("the journal's buffer is full ({} rows): rows find no room and are dropped{}; {} so far. A"
                        + " restore cannot bring back the messages they describe", buffered,
                        whenUnavailable == WhenUnavailable.BLOCK ? " after waiting (sends fail)" : " (sends go on)",
                        count);
            }
        }
    }

    /** Counts a row the database refused for good; the writer logs it with the row. */
    void refused() {
        gap.incrementAndGet();
    }

    /** A batch failed: the first failure of an outage says so, and then every 30 s while it lasts. */
    void failed(Exception e, int rowsInHand, int buffered) {
        failures.incrementAndGet();
        long now = System.nanoTime();
        if (outageStartNanos == 0) {
            outageStartNanos = now;
            outageLoggedNanos = now;
            log.warn("the journal cannot write to its database: {}. Its {} rows in hand are written again until it"
                    + " answers; meanwhile rows wait in its buffer ({} of them), and once it is full sends {}", e.toString(),
                    rowsInHand, buffered, whenUnavailable == WhenUnavailable.BLOCK ? "wait, then fail"
                            : "go on and their rows are dropped");
        } else if (now - outageLoggedNanos > LOG_EVERY_NANOS) {
            outageLoggedNanos = now;
            log.warn("the journal's database is still out of reach after {} s ({} rows buffered): {}",
                    TimeUnit.NANOSECONDS.toSeconds(now - outageStartNanos), buffered, e.toString());
        }
    }

    /** A batch was written: an outage, if there was one, is over. */
    void recovered() {
        if (outageStartNanos != 0) {
            log.info("the journal's database answers again after {} ms; the buffered rows are being written",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStartNanos));
            outageStartNanos = 0;
        }
    }

    boolean inOutage() {
        return outageStartNanos != 0;
    }

    long gap() {
        return gap.get();
    }

    long failures() {
        return failures.get();
    }
}
