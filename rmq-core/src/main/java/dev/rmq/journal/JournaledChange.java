package dev.rmq.journal;

import java.time.Instant;

/**
 * A change to a waiting message, as Redis made it: a producer's cancel, reschedule or reprioritization, or a
 * message a clear removed (see {@link MessageJournal#cleared}).
 *
 * @param topic the topic
 * @param key   the message key
 * @param kind  what changed
 * @param score the new due time (epoch ms) or priority; 0 for a cancel
 * @param time  when, by the producer's clock
 */
public record JournaledChange(String topic, String key, Kind kind, long score, Instant time) {

    public enum Kind {
        CANCELLED, RESCHEDULED, REPRIORITIZED
    }
}
