package dev.rmq.internal.pull;

import dev.rmq.internal.consumer.HeldSlot;
import dev.rmq.internal.redis.SlotKeys;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One slot a puller holds: when to poll it next, and the deliveries it handed out that are not ended yet. A slot
 * with a delivery still under its lease is not polled again, so that one slot basis is handled one batch after
 * another, as a container's worker does. {@link #failures} is touched under the puller's lock only; the rest is
 * safe from any thread. Once revoked, the slot is let go when no delivery of it holds a lease any more.
 */
final class PullSlot extends HeldSlot {

    final Set<PulledDelivery<?>> outstanding = ConcurrentHashMap.newKeySet();

    PullSlot(int slot, SlotKeys keys, String fence, long holdUntilNanos) {
        super(slot, keys, fence, holdUntilNanos);
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
}
