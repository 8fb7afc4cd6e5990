package dev.rmq.faults.check;

import java.util.List;

/**
 * What the run's journal holds of a key, read once the run is over: the evidence for a duplicate that a
 * {@code redis-flush}'s restore made. The restore puts back every message the journal still held open, so a message
 * committed before the flush comes back when the journal had no row of that commit yet, however long its consumer's
 * asynchronous writer was behind.
 */
public interface JournalRecord {

    /** A run without a journal: it holds nothing. */
    JournalRecord NONE = (topic, key) -> List.of();

    /**
     * One row of {@code rmq_transitions}.
     *
     * @param id        the row's id, which orders the rows as they were written
     * @param messageId the message row it belongs to: a key may have several, one per send it did not merge
     * @param state     the state's word, such as {@code acked} or {@code restored}
     * @param atMicros  when the change happened, by the host clock (a restore's rows: when it put the message back)
     */
    record Transition(long id, long messageId, String state, long atMicros) {
    }

    /** The transitions of every message of {@code key} in {@code topic}, in the order they were written. */
    List<Transition> of(String topic, String key);
}
