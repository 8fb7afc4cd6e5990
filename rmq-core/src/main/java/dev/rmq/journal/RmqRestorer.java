package dev.rmq.journal;

import java.util.List;

/**
 * Puts messages back into Redis after it lost them: a restart without persistence, a {@code FLUSHALL}, a failover
 * that dropped writes. A message whose key Redis still holds in its slot, waiting, parked, in flight or dead, is
 * left as it is, so that a restore run twice, or run while nothing was lost, changes nothing. A message whose time
 * to live has run out by the Redis clock ends as it would have had Redis kept it: in the dead queue with reason
 * {@code expired}, or dropped, as the topic's expiry action says.
 */
public interface RmqRestorer {

    /**
     * @param topic    a topic of the client's
     * @param messages the messages, any slots; their slots must lie within the topic's
     * @return what became of each, in order
     * @throws IllegalArgumentException for an unknown topic or a slot outside it
     */
    List<Outcome> restore(String topic, List<RestoredMessage> messages);

    /**
     * What {@link #restore} would do with the messages, by what Redis holds now, writing nothing: a dry run.
     *
     * @throws IllegalArgumentException for an unknown topic or a slot outside it
     */
    List<Outcome> check(String topic, List<RestoredMessage> messages);

    enum Outcome {
        /** Put back: it waits again, at its due time or priority, with its attempts. */
        RESTORED,
        /** Redis still holds a message of that key: nothing was written. */
        PRESENT,
        /**
         * Its time to live had run out: it went to the dead queue, or was dropped, as the topic's expiry action says.
         */
        EXPIRED
    }
}
