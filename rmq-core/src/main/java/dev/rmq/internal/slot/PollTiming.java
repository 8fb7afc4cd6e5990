package dev.rmq.internal.slot;

import java.util.concurrent.TimeUnit;

/**
 * When a slot session may next be polled: the hold-off after a takeover, the wait the last poll's script planned,
 * a wake-up that comes earlier, and the backoff after failed polls.
 */
final class PollTiming {

    private static final long MAX_ERROR_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** No poll before this, whatever wakes the slot: the hold-off of a takeover. */
    final long holdUntilNanos;
    private volatile long nextPollNanos;
    /** A wake-up arrived while a poll was on its way: its planned wait must not overwrite it. */
    private volatile boolean woken;
    /** Polls that failed in a row; touched by the polling thread only. */
    private int failures;

    PollTiming(long holdUntilNanos) {
        this.holdUntilNanos = holdUntilNanos;
        this.nextPollNanos = holdUntilNanos;
    }

    long nextPollNanos() {
        return nextPollNanos;
    }

    /** Whether the time to poll has come. */
    boolean come(long nowNanos) {
        return nowNanos - nextPollNanos >= 0 && nowNanos - holdUntilNanos >= 0;
    }

    /** When the slot may be polled, and no earlier than the hold-off. */
    long pollAtNanos(long nowNanos) {
        return Math.max(nextPollNanos - nowNanos, holdUntilNanos - nowNanos) + nowNanos;
    }

    /**
     * A send made a message due earlier than the planned poll: poll at once, unless the slot is still held off after
     * a takeover; a slot whose consumers may be elsewhere waits {@code graceNanos} for them.
     */
    void wake(long graceNanos) {
        woken = true;
        long now = System.nanoTime();
        nextPollNanos = graceNanos == 0 ? holdUntilNanos : Math.max(holdUntilNanos - now, graceNanos) + now;
    }

    /** A poll starts: a wake-up from now on comes after it. */
    void polling() {
        woken = false;
    }

    /** Poll again until {@code nanos}: a rate limit's wait. */
    void notBefore(long nanos) {
        nextPollNanos = nanos;
    }

    /** A poll went through, and its script planned to wait {@code waitMs} (0 when more is due at once). */
    void polled(long waitMs) {
        failures = 0;
        long now = System.nanoTime();
        // a send that woke the slot during the call may have come after the script had planned its wait
        nextPollNanos = waitMs == 0 || woken ? now : now + TimeUnit.MILLISECONDS.toNanos(waitMs);
    }

    /** Counts a failed poll and puts the next one off, 200 ms doubling with each failure in a row up to 5 s. */
    long backOff() {
        failures++;
        long delay = Math.min(MAX_ERROR_BACKOFF_NANOS, TimeUnit.MILLISECONDS.toNanos(100L << Math.min(failures, 6)));
        nextPollNanos = System.nanoTime() + delay;
        return delay;
    }

    int failuresInARow() {
        return failures;
    }
}
