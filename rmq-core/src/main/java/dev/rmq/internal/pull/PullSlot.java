package dev.rmq.internal.pull;

import dev.rmq.internal.redis.SlotKeys;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One slot a puller holds: when to poll it next, and the deliveries it handed out that are not ended yet. A slot
 * with a delivery still under its lease is not polled again, so that one slot basis is handled one batch after
 * another, as a container's worker does. {@link #nextPollNanos} and {@link #failures} are guarded by the puller's
 * lock; the rest is safe from any thread.
 */
final class PullSlot {

    final int slot;
    final SlotKeys keys;
    /** The fencing token the slot's scripts check; empty when unfenced. */
    final String fence;
    /** No poll before this: the hold-off of a takeover. */
    final long holdUntilNanos;
    long nextPollNanos;
    int failures;
    final Set<PulledDelivery<?>> outstanding = ConcurrentHashMap.newKeySet();
    /** Set when the slot is to be let go; completes once no delivery of it holds a lease. */
    volatile CompletableFuture<Void> revoked;

    PullSlot(int slot, SlotKeys keys, String fence, long holdUntilNanos) {
        this.slot = slot;
        this.keys = keys;
        this.fence = fence;
        this.holdUntilNanos = holdUntilNanos;
        this.nextPollNanos = holdUntilNanos;
    }

    /** Whether a delivery of this slot still runs under its lease. */
    boolean busy(long nowNanos) {
        return leasesEndNanos(nowNanos) != 0;
    }

    /** When the last lease of the deliveries still out ends, or 0 when none runs any more. */
    long leasesEndNanos(long nowNanos) {
        long latest = 0;
        boolean any = false;
        for (PulledDelivery<?> delivery : outstanding) {
            long ends = delivery.leaseEndsNanos();
            if (ends - nowNanos > 0 && (!any || ends - latest > 0)) {
                latest = ends;
                any = true;
            }
        }
        return any ? latest : 0;
    }

    /** Whether the slot may be polled now. */
    boolean due(long nowNanos) {
        return revoked == null && nowNanos - nextPollNanos >= 0 && nowNanos - holdUntilNanos >= 0 && !busy(nowNanos);
    }

    /** Marks the slot to be let go and returns the stage that completes once it is. */
    synchronized CompletableFuture<Void> markRevoked() {
        if (revoked == null) {
            revoked = new CompletableFuture<>();
        }
        return revoked;
    }
}
