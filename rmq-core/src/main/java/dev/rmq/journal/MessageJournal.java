package dev.rmq.journal;

import dev.rmq.events.RmqEvent;
import dev.rmq.events.RmqEventListener;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
     * The header that tells one send of a key from another: on a journaled topic the client gives every message it
     * sends one, a random id, replacing any of the same name. It travels with the message through Redis (a merge
     * takes the newest send's, as it takes its payload), so that a consumer's {@link RmqEvent.Delivered} names the
     * send it delivers, and a journal can match the delivery to its send even when the two reach it out of order.
     */
    String SEND_ID_HEADER = "rmq-send-id";

    /**
     * Messages Redis has just stored, added or merged, in the order of the call that sent them.
     *
     * @return completes when the sender may go on; a failed stage fails the send, although Redis holds the message
     */
    CompletionStage<Void> sent(List<JournaledSend> sends);

    /** A producer changed a waiting message: cancelled, rescheduled or reprioritized it. */
    void changed(JournaledChange change);

    /**
     * Whether the journal records the topic's messages. A clear asks Redis for the keys it removes only from a topic
     * that is journaled, since listing them costs Redis time. True unless the implementation says otherwise.
     */
    default boolean journals(String topic) {
        return true;
    }

    /**
     * A clear removed these waiting and parked messages of the topic from Redis. The stage completes once the
     * journal holds each as cancelled, so that no restore brings it back; the clear completes after it, and a failed
     * stage fails the clear (Redis has removed the messages all the same). Called off Redis's I/O threads, so an
     * implementation may wait here for room in its buffer. By default each key goes through {@link #changed}.
     */
    default CompletionStage<Void> cleared(String topic, List<String> keys, Instant time) {
        for (String key : keys) {
            changed(new JournaledChange(topic, key, JournaledChange.Kind.CANCELLED, 0, time));
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * What the journal holds of a key's messages, the latest first: the one that waits or runs now, and those that
     * ended within the journal's retention.
     *
     * @param limit the most messages, 1 or more
     * @throws UnsupportedOperationException when this journal keeps no history; the JDBC journal does
     */
    default List<MessageHistory> history(String topic, String key, int limit) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no history of its messages");
    }
}
