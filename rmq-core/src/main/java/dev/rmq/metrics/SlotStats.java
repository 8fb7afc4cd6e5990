package dev.rmq.metrics;

import java.util.List;

/**
 * The sizes of one slot.
 *
 * @param slot     the slot index
 * @param backlog  messages waiting (including priority messages waiting out a backoff)
 * @param inFlight messages handed to consumers, not yet acknowledged
 * @param dead     messages in the dead queue
 */
public record SlotStats(int slot, long backlog, long inFlight, long dead) {

    /** The sums over some slots, with slot -1. */
    public static SlotStats sum(List<SlotStats> slots) {
        long backlog = 0;
        long inFlight = 0;
        long dead = 0;
        for (SlotStats s : slots) {
            backlog += s.backlog();
            inFlight += s.inFlight();
            dead += s.dead();
        }
        return new SlotStats(-1, backlog, inFlight, dead);
    }
}
