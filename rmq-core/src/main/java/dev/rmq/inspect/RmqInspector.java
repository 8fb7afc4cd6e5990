package dev.rmq.inspect;

import dev.rmq.journal.MessageHistory;
import dev.rmq.metrics.TopicInspector;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.StoredMessage;

import java.util.List;
import java.util.Optional;

/**
 * Reads what is queued without taking anything: counts, the next messages in consume order, the messages in flight,
 * one message by key, and a key's history from the journal. A topic's counts and pages are one call per slot, all pipelined: one round trip per Redis
 * node, not per slot. Obtained from {@code RmqClient.inspector()}; thread-safe.
 */
public interface RmqInspector extends TopicInspector {

    /** The most entries one page may ask for, and how deep a page of a whole topic may reach. */
    int MAX_PAGE = 1000;

    /** Every slot's counts and their sum, in one round trip per Redis node. */
    TopicCounts counts(String topic);

    /** One slot's counts, without reading the others. */
    SlotCounts counts(String topic, int slot);

    /**
     * A page of a topic's waiting messages in the order consumers take them: earliest due first (range-merge and
     * fixed-time), or highest priority first, then the priority messages not visible yet by when they become
     * visible. This is the order in which one consumer holding every slot takes them ({@link
     * dev.rmq.consumer.SlotOrder#MOST_URGENT}); consumers holding some of the slots each take theirs in this order.
     *
     * @param offset the first message, from 0
     * @param limit  1 to {@value #MAX_PAGE}; {@code offset + limit} at most {@value #MAX_PAGE}
     */
    List<StoredMessage> peek(String topic, int offset, int limit);

    /**
     * A page of a topic's waiting messages from where {@code cursor} left off, with no depth limit: start with
     * {@link PeekCursor#first()} (the order of {@link #peek(String, int, int)}) or {@link PeekCursor#newestFirst()}
     * (the reverse), and pass each page's {@link PeekPage#next()} to get the next. Each page reads at most
     * {@code limit + 1} entries of each slot, however deep it is.
     *
     * @param limit 1 to {@value #MAX_PAGE}
     * @throws IllegalArgumentException when the cursor names a slot the topic does not have
     */
    PeekPage peek(String topic, PeekCursor cursor, int limit);

    /** A page of one slot's waiting messages in the order a poll takes them; offset any, limit 1 to {@value #MAX_PAGE}. */
    List<StoredMessage> peek(String topic, int slot, long offset, int limit);

    /**
     * A page of a topic's in-flight messages, the earliest lease deadline first, with their attempts; the score of
     * each is its lease deadline in epoch microseconds. Limits as {@link #peek(String, int, int)}.
     */
    List<StoredMessage> inFlight(String topic, int offset, int limit);

    /** A page of one slot's in-flight messages, the earliest lease deadline first. */
    List<StoredMessage> inFlight(String topic, int slot, long offset, int limit);

    /** Where one message is (waiting, delayed, retrying, parked, in flight or dead), with its due time or priority. */
    Optional<StoredMessage> find(MessageRef ref);

    /** How many of a key's messages {@link #history(String, String)} gives at most. */
    int MAX_HISTORY = 20;

    /**
     * What the journal holds of a key's messages, the latest first (at most {@value #MAX_HISTORY}): each with its
     * content, last state and every change of its state, whether it still waits, runs, or ended within the
     * journal's retention. Reads the journal's database, not Redis.
     *
     * @throws dev.rmq.journal.NoJournalException when the client has no journal
     */
    List<MessageHistory> history(String topic, String key);
}
