package dev.rmq.schedule;

/**
 * What a tick does while the previous tick of its schedule is still being handled. The ticks of one schedule go to
 * one slot (the schedule's name is their slot basis), and a slot's messages are handled one after another, so two
 * ticks never run at once either way.
 */
public enum Overlap {

    /** The tick waits its turn, and runs once the previous one has ended (the default). */
    DELAY,

    /**
     * The tick is dropped if the previous one is still in flight when it comes, and counted in
     * {@code rmq.schedule.skipped}. Its message is sent at the tick's instant rather than ahead of it.
     */
    SKIP
}
