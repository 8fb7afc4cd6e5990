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
    JournalRecord NONE = new JournalRecord() {
        @Override
        public List<Transition> of(String topic, String key) {
            return List.of();
        }

        @Override
        public long firstRestoredFrom(long messageId, long fromMicros, long toMicros) {
            return Long.MAX_VALUE;
        }
    };

    /**
     * One row of {@code rmq_transitions}.
     *
     * @param id        the row's id, drawn from a sequence as the row is inserted: a row with a greater id was
     *                  inserted later, so a read made before the other row's insert could not have seen it
     * @param messageId the message row it belongs to: a key may have several, one per send it did not merge
     * @param state     the state's word, such as {@code acked} or {@code restored}
     * @param atMicros  when the change happened, by the host clock (a restore's rows: when it put the message back)
     */
    record Transition(long id, long messageId, String state, long atMicros) {
    }

    /** The transitions of every message of {@code key} in {@code topic}, in the order they were written. */
    List<Transition> of(String topic, String key);

    /**
     * The id of the first {@code restored} row, made from {@code fromMicros} to {@code toMicros}, of a message whose
     * id is {@code messageId} or more; {@link Long#MAX_VALUE} when there is none. A restore reads the open messages a
     * page at a time in id order, puts a page back, then marks it: such a row was written after the restore had
     * read message {@code messageId}.
     */
    long firstRestoredFrom(long messageId, long fromMicros, long toMicros);
}
