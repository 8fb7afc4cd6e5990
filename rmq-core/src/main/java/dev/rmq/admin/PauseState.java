package dev.rmq.admin;

import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;

/**
 * Whether a topic is paused, slot by slot: a pause or resume that failed half-way (Redis went away) leaves only
 * some slots paused, and saying so is what lets it be repeated.
 *
 * @param topic       the topic
 * @param pausedSlots how many of its slots take nothing now
 * @param slotAmount  how many slots it has
 */
public record PauseState(String topic, int pausedSlots, int slotAmount) {

    /** The pause state that a topic's counts show: each slot's counts say whether it is paused. */
    public static PauseState of(TopicCounts counts) {
        int paused = (int) counts.slots().stream().filter(SlotCounts::paused).count();
        return new PauseState(counts.topic(), paused, counts.slots().size());
    }

    /** Every slot is paused. */
    public boolean paused() {
        return pausedSlots == slotAmount;
    }

    /** Some slots are paused and some are not: repeat the pause or the resume. */
    public boolean partly() {
        return pausedSlots > 0 && pausedSlots < slotAmount;
    }

    /** {@code paused}, {@code running} or {@code partly paused (3 of 16 slots)}. */
    public String describe() {
        if (paused()) {
            return "paused";
        }
        return pausedSlots == 0 ? "running" : "partly paused (" + pausedSlots + " of " + slotAmount + " slots)";
    }
}
