package dev.rmq.dead;

import java.util.List;

/**
 * Inspects and operates the dead queue of each topic, slot by slot or over all slots. Obtained from
 * {@code RmqClient.deadQueue()}; thread-safe.
 */
public interface RmqDeadQueue {

    /** The largest page {@link #list} returns. */
    int MAX_PAGE = 1000;

    /** A page of one slot's dead messages, oldest first. */
    List<DeadMessage> list(String topic, int slot, long offset, int limit);

    /** Dead messages in one slot. */
    long count(String topic, int slot);

    /** Dead messages in all slots of a topic, counted in one round trip per Redis node. */
    long count(String topic);

    /**
     * Puts a dead message back to be consumed again, from attempt 0: due now, or at its priority. On a journaled
     * topic the journal records it as sent again, so that a restore brings it back while it waits, and the call
     * returns once the journal lets it, as a send does: a journal's failure is thrown, the message requeued in Redis
     * all the same.
     *
     * @return true when it was dead and now waits again, or was dropped because a newer message of its key already
     *         waited or was in flight
     */
    boolean requeue(String topic, int slot, String key);

    /**
     * Requeues every dead message of a topic, and on a journaled topic records each as {@link #requeue} does;
     * returns how many were moved.
     */
    long requeueAll(String topic);

    /** Removes one dead message for good. */
    boolean delete(String topic, int slot, String key);

    /** Removes every dead message of a topic; returns how many. */
    long purge(String topic);
}
