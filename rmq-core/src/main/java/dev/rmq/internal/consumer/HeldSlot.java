package dev.rmq.internal.consumer;

import dev.rmq.internal.redis.SlotKeys;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A slot that a consumer holds, a container's worker ({@link SlotState}) or a puller's topic: its keys, the fencing
 * token its scripts check, when it may next be polled, and whether it is being let go.
 */
public class HeldSlot {

    private static final long MAX_ERROR_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    public final int slot;
    public final SlotKeys keys;
    /** The fencing token the slot's scripts check; empty when unfenced. */
    public final String fence;
    /** No poll before this, whatever wakes the slot: the hold-off of a takeover. */
    public final long holdUntilNanos;
    public volatile long nextPollNanos;
    /** Set when the slot is to be let go; completes once it has been let go. */
    public volatile CompletableFuture<Void> revoked;
    /** Polls that failed in a row; touched by the polling thread only. */
    public int failures;

    protected HeldSlot(int slot, SlotKeys keys, String fence, long holdUntilNanos) {
        this.slot = slot;
        this.keys = keys;
        this.fence = fence == null ? "" : fence;
        this.holdUntilNanos = holdUntilNanos;
        this.nextPollNanos = holdUntilNanos;
    }

    public boolean isFenced() {
        return !fence.isEmpty();
    }

    /** Marks the slot to be let go and returns the stage that completes once it is. */
    public synchronized CompletableFuture<Void> markRevoked() {
        if (revoked == null) {
            revoked = new CompletableFuture<>();
        }
        return revoked;
    }

    /**
     * Counts a failed poll and puts the next one off, 200 ms doubling with each failure in a row up to 5 s.
     *
     * @return the delay, in nanoseconds
     */
    public long backOff() {
        failures++;
        long delay = Math.min(MAX_ERROR_BACKOFF_NANOS, TimeUnit.MILLISECONDS.toNanos(100L << Math.min(failures, 6)));
        nextPollNanos = System.nanoTime() + delay;
        return delay;
    }
}
