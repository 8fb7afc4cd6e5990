package dev.rmq.journal.jdbc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The changes that found no message, kept for another try, until {@link #LIMIT_NANOS} after the first: a message
 * sent by another process may have its row written a little after a consumer took it. After that it is a message
 * the journal never held (sent before the journal was on, or its row dropped), and the change is counted as
 * unmatched; but a change that names its send first waits as long again, matched by order as one that names none.
 *
 * <p>They are tried again every {@link #RETRY_MILLIS}, not with every batch: under load a batch goes every few
 * milliseconds, and thousands of waiting changes looked up again with each would slow the writer, and so every
 * change, behind them. Between tries, a batch's later changes of a waiting key join the wait behind it, in order.
 * Only the writer's thread touches it, but for the count that {@link #size()} reads.
 */
final class WaitingChanges {

    private static final Logger log = LoggerFactory.getLogger(WaitingChanges.class);
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How often the writer tries them again. */
    static final long RETRY_MILLIS = 100;
    /** The most changes that wait at once; beyond them, a change is counted as unmatched. */
    private static final int CAPACITY = 10_000;

    private final long limitNanos;
    private final AtomicLong unmatched = new AtomicLong();
    private List<Waiting> waiting = new ArrayList<>();
    /** Those taken into the batch being written, by identity: when each first waited. */
    private final Map<Row.Change, Long> taken = new IdentityHashMap<>();
    private final Set<String> keys = new HashSet<>();
    private long lastTryNanos = System.nanoTime();
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

    /** Whether the waiting changes are to be tried again with the next batch. */
    boolean due() {
        return !waiting.isEmpty() && System.nanoTime() - lastTryNanos >= TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
    }

    /**
     * Moves the waiting changes, oldest first, in front of a batch: they happened before its rows. Those the write
     * leaves unplaced come back with {@link #add}, keeping when they first waited. Returns how many.
     */
    int takeInto(List<Row> batch) {
        waiting.forEach(w -> {
            batch.add(w.change());
            taken.put(w.change(), w.sinceNanos());
        });
        int moved = waiting.size();
        waiting = new ArrayList<>();
        keys.clear();
        lastTryNanos = System.nanoTime();
        return moved;
    }

    /**
     * Takes out of a batch that does not try the waiting changes again the changes of their keys, and adds them to
     * the wait behind those: written now, they would come before changes of their key that happened first. Returns
     * how many.
     */
    int holdBack(List<Row> batch) {
        if (waiting.isEmpty()) {
            return 0;
        }
        int held = 0;
        for (var rows = batch.iterator(); rows.hasNext(); ) {
            if (rows.next() instanceof Row.Change change && keys.contains(keyOf(change))) {
                rows.remove();
                waiting.add(new Waiting(change, System.nanoTime()));
                held++;
            }
        }
        count = waiting.size();
        return held;
    }

    /**
     * Adds what a write left unplaced to the wait, each keeping when it first waited, and gives up on those that
     * waited too long.
     */
    void add(List<Row.Change> unplaced) {
        long now = System.nanoTime();
        for (Row.Change change : unplaced) {
            long since = taken.getOrDefault(change, now);
            if (now - since < limitNanos && waiting.size() < CAPACITY) {
                waitFor(change, since);
            } else if (change.sendId() != null && waiting.size() < CAPACITY) {
                // its send never got a row of its own (its journaling failed, or it was sent by a client that
                // journals nothing): matched by order from now on, as a change that names no send
                waitFor(change.withoutSendId(), now);
            } else {
                unmatched.incrementAndGet();
                log.debug("no journaled message of {} {} took its {} within {} s; the change is dropped", change.topic(),
                        change.key(), change.state().column(), TimeUnit.NANOSECONDS.toSeconds(limitNanos));
            }
        }
        taken.clear();
        count = waiting.size();
    }

    private void waitFor(Row.Change change, long sinceNanos) {
        waiting.add(new Waiting(change, sinceNanos));
        keys.add(keyOf(change));
    }

    private static String keyOf(Row.Change change) {
        return change.topic() + '\n' + change.key();
    }
}
