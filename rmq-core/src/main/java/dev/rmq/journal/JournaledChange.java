package dev.rmq.journal;

import java.time.Instant;

/**
 * A change to a waiting message, as Redis made it: a producer's cancel, reschedule or reprioritization, or a
 * message a clear removed (see {@link MessageJournal#cleared}).
 *
 * @param topic the topic
 * @param key   the message key
 * @param kind  what changed
 * @param score the new due time (epoch ms) or priority; for {@link Kind#DELAYED} the new not-before time (epoch ms),
 *              0 when the message is visible at once; 0 for a cancel
 * @param time  when, by the producer's clock
 */
public record JournaledChange(String topic, String key, Kind kind, long score, Instant time) {

    public enum Kind {
        CANCELLED, RESCHEDULED, REPRIORITIZED,
        /** A priority message's not-before time changed; its priority stays. */
        DELAYED
    }
}
