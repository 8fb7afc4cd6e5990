package dev.rmq.journal;

import dev.rmq.events.RmqEvent;
import dev.rmq.events.RmqEventListener;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Records every message a client sends and every change of its state, outside Redis. The client calls it after
 * Redis has stored a send, and a send completes only once the stage {@link #sent} returns completes: a journal
 * that must hold a message before its sender goes on (a synchronous one) completes it on commit, others at once.
 * Consumers' deliveries and acknowledgements arrive as {@link RmqEvent}s, {@link RmqEvent.Delivered} and
 * {@link RmqEvent.Acknowledged} among them.
 *
 * <p>Called from rmq's threads, concurrently: an implementation must be thread-safe and must not block long,
 * except as its documented policy says when its own store is out of reach.
 */
public interface MessageJournal extends RmqEventListener {

    /**
     * Messages Redis has just stored, added or merged, in the order of the call that sent them.
     *
     * @return completes when the sender may go on; a failed stage fails the send, although Redis holds the message
     */
    CompletionStage<Void> sent(List<JournaledSend> sends);

    /** A producer changed a waiting message: cancelled, rescheduled or reprioritized it. */
    void changed(JournaledChange change);
}
