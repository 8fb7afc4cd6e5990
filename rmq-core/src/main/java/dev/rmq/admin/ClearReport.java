package dev.rmq.admin;

/**
 * What a clear removed from a topic.
 *
 * @param topic   the topic
 * @param waiting the waiting messages removed: due now or later, or waiting out a not-before time or a backoff
 * @param parked  the parked messages removed: sends of a key that was in flight, waiting for that delivery to end
 * @param dead    the dead messages removed; 0 unless the scope was {@link ClearScope#WAITING_AND_DEAD}
 */
public record ClearReport(String topic, long waiting, long parked, long dead) {

    /** Every message removed. */
    public long total() {
        return waiting + parked + dead;
    }
}
