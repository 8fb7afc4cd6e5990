package dev.rmq.metrics;

import java.util.List;

/**
 * The sizes of one slot.
 *
 * @param slot     the slot index
 * @param backlog  messages waiting: due or not, delayed, retrying, or parked behind an in-flight delivery of
 *                 their key
 * @param inFlight messages handed to consumers, not yet acknowledged
 * @param dead     messages in the dead queue
 * @param paused   whether the slot is paused (for sums: whether every slot summed is)
 * @param dueAgeMs how long the oldest message due now has been due, in ms by the Redis clock (for sums: the most
 *                 of any slot); 0 when none is due, and on priority topics
 */
public record SlotStats(int slot, long backlog, long inFlight, long dead, boolean paused, long dueAgeMs) {

    /** Sizes without an age, as before there was one. */
    public SlotStats(int slot, long backlog, long inFlight, long dead, boolean paused) {
        this(slot, backlog, inFlight, dead, paused, 0);
    }

    /** The sums over some slots, with slot -1. */
    public static SlotStats sum(List<SlotStats> slots) {
        long backlog = 0;
        long inFlight = 0;
        long dead = 0;
        boolean paused = !slots.isEmpty();
        long dueAgeMs = 0;
        for (SlotStats s : slots) {
            backlog += s.backlog();
            inFlight += s.inFlight();
            dead += s.dead();
            paused &= s.paused();
            dueAgeMs = Math.max(dueAgeMs, s.dueAgeMs());
        }
        return new SlotStats(-1, backlog, inFlight, dead, paused, dueAgeMs);
    }
}
