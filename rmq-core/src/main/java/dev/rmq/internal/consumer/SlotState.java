package dev.rmq.internal.consumer;

import dev.rmq.internal.redis.SlotKeys;

import java.util.concurrent.CompletableFuture;

/** What a worker knows of one slot it holds. Fields without volatile are touched by the worker thread only. */
final class SlotState {

    final int slot;
    final SlotKeys keys;
    /** The fencing token the slot's scripts check; empty when unfenced. */
    final String fence;
    /** No poll before this, whatever wakes the slot: the hold-off of a takeover. */
    final long holdUntilNanos;
    volatile long nextPollNanos;
    /** A wake-up arrived while a poll was on its way: its planned wait must not overwrite it. */
    volatile boolean woken;
    /** Set when the slot is to be let go; completes once the worker has let it go. */
    volatile CompletableFuture<Void> revoked;
    /** Polls that failed in a row. */
    int failures;
    /** When Redis last confirmed the fencing token (a poll, an ack or an extension went through). */
    long verifiedNanos;

    SlotState(int slot, SlotKeys keys, String fence, long holdUntilNanos) {
        this.slot = slot;
        this.keys = keys;
        this.fence = fence;
        this.holdUntilNanos = holdUntilNanos;
        this.nextPollNanos = holdUntilNanos;
    }

    boolean isFenced() {
        return !fence.isEmpty();
    }

    /** Marks the slot to be let go and returns the stage that completes once it is. */
    synchronized CompletableFuture<Void> markRevoked() {
        if (revoked == null) {
            revoked = new CompletableFuture<>();
        }
        return revoked;
    }
}
