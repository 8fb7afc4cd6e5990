package dev.rmq.journal.jdbc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The changes that found no message, kept for another try, until {@link #LIMIT_NANOS} after the first: a message
 * sent by another process may have its row written a little after a consumer took it. After that it is a message
 * the journal never held (sent before the journal was on, or its row dropped), and the change is counted as
 * unmatched; but a change that names its send first waits as long again, matched by order as one that names none.
 * Only the writer's thread touches it, but for the count that {@link #size()} reads.
 */
final class WaitingChanges {

    private static final Logger log = LoggerFactory.getLogger(WaitingChanges.class);
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How often the writer tries them again while no other row comes. */
    static final long RETRY_MILLIS = 100;
    /** The most changes that wait at once; beyond them, a change is counted as unmatched. */
    private static final int CAPACITY = 10_000;

    private final long limitNanos;
    private final AtomicLong unmatched = new AtomicLong();
    private List<Waiting> waiting = new ArrayList<>();
    private volatile int count;

    /** A change waiting for its message's row, since when. */
    private record Waiting(Row.Change change, long sinceNanos) {
    }

    WaitingChanges() {
        this(LIMIT_NANOS);
    }

    /** Changes that wait up to {@code limitNanos}: for a test, which cannot wait the default. */
    WaitingChanges(long limitNanos) {
        this.limitNanos = limitNanos;
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** How many wait, for the stats; read from any thread. */
    int size() {
        return count;
    }

    long unmatched() {
        return unmatched.get();
    }

    /** Adds the waiting changes, oldest first, in front of a batch: they happened before its rows. Returns how many. */
    int addTo(List<Row> batch) {
        waiting.forEach(w -> batch.add(w.change()));
        return waiting.size();
    }

    /** What a write left unplaced becomes the waiting changes, each keeping when it first failed. */
    void replaceWith(List<Row.Change> unplaced) {
        Map<Row.Change, Long> before = new IdentityHashMap<>();
        waiting.forEach(w -> before.put(w.change(), w.sinceNanos()));
        List<Waiting> next = new ArrayList<>();
        long now = System.nanoTime();
        for (Row.Change change : unplaced) {
            long since = before.getOrDefault(change, now);
            if (now - since < limitNanos && next.size() < CAPACITY) {
                next.add(new Waiting(change, since));
            } else if (change.sendId() != null && next.size() < CAPACITY) {
                // its send never got a row of its own (its journaling failed, or it was sent by a client that
                // journals nothing): matched by order from now on, as a change that names no send
                next.add(new Waiting(change.withoutSendId(), now));
            } else {
                unmatched.incrementAndGet();
                log.debug("no journaled message of {} {} took its {} within {} s; the change is dropped", change.topic(),
                        change.key(), change.state().column(), TimeUnit.NANOSECONDS.toSeconds(limitNanos));
            }
        }
        waiting = next;
        count = next.size();
    }
}
