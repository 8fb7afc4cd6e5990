package dev.rmq.internal.consumer;

import dev.rmq.internal.redis.SlotKeys;

/** What a worker knows of one slot it holds. Fields without volatile are touched by the worker thread only. */
final class SlotState extends HeldSlot {

    /** A wake-up arrived while a poll was on its way: its planned wait must not overwrite it. */
    volatile boolean woken;
    /** When Redis last confirmed the fencing token (a poll, an ack or an extension went through). */
    volatile long verifiedNanos;

    /** The worker thread's name while it handles this slot's messages: the worker's, then the slot's hash tag. */
    final String threadName;

    SlotState(int slot, SlotKeys keys, String fence, long holdUntilNanos, String threadName) {
        super(slot, keys, fence, holdUntilNanos);
        this.threadName = threadName;
    }
}
