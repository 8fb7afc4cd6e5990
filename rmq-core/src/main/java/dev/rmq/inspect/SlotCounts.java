package dev.rmq.inspect;

import java.util.List;

/**
 * How many messages of one slot (or, summed, of several) are where, by the Redis clock.
 *
 * @param slot     the slot index, -1 for a sum
 * @param dueNow   waiting and due now: a time-typed message past its due time, or a visible priority message
 * @param later    waiting for their time: a due time to come, a retry's backoff, or a priority message's
 *                 not-before time
 * @param retrying of the ones waiting later, those that failed and wait out their backoff (a failed message due
 *                 again by now counts as due now only, as its state is then waiting)
 * @param parked   sent while a delivery of their key was in flight: they wait for it to end
 * @param inFlight handed to consumers under a lease, not yet acknowledged
 * @param dead     in the dead queue
 * @param paused   whether the slot is paused (for a sum: whether every slot summed is)
 * @param dueAgeMs how long the oldest message due now has been due, in ms by the Redis clock: how far consumers
 *                 are behind (for a sum: the most of any slot). 0 when none is due, and always 0 on a priority
 *                 topic, whose messages are due as they are sent and carry no send time
 * @param fence    the fencing token of the slot's owner, as ZooKeeper coordination set it in Redis: it changes with
 *                 every handover, and the owner's polls and acknowledgements must quote it. Empty when no
 *                 coordinated worker holds the slot, and for a sum
 */
public record SlotCounts(int slot, long dueNow, long later, long retrying, long parked, long inFlight, long dead,
                         boolean paused, long dueAgeMs, String fence) {

    /** Counts without a fencing token, as before there was one. */
    public SlotCounts(int slot, long dueNow, long later, long retrying, long parked, long inFlight, long dead,
                      boolean paused, long dueAgeMs) {
        this(slot, dueNow, later, retrying, parked, inFlight, dead, paused, dueAgeMs, "");
    }

    /** Counts without an age, as before there was one. */
    public SlotCounts(int slot, long dueNow, long later, long retrying, long parked, long inFlight, long dead,
                      boolean paused) {
        this(slot, dueNow, later, retrying, parked, inFlight, dead, paused, 0);
    }

    /** Every message not yet delivered: due now, later, and parked. */
    public long waiting() {
        return dueNow + later + parked;
    }

    /** The sums over some slots, with slot -1. */
    public static SlotCounts sum(List<SlotCounts> slots) {
        long dueNow = 0;
        long later = 0;
        long retrying = 0;
        long parked = 0;
        long inFlight = 0;
        long dead = 0;
        boolean paused = !slots.isEmpty();
        long dueAgeMs = 0;
        for (SlotCounts s : slots) {
            dueNow += s.dueNow;
            later += s.later;
            retrying += s.retrying;
            parked += s.parked;
            inFlight += s.inFlight;
            dead += s.dead;
            paused &= s.paused;
            dueAgeMs = Math.max(dueAgeMs, s.dueAgeMs);
        }
        return new SlotCounts(-1, dueNow, later, retrying, parked, inFlight, dead, paused, dueAgeMs);
    }
}
