package dev.rmq.journal.jdbc;

/** When a send's row is written, per topic. */
public enum JournalMode {
    /** Not journaled: a restore cannot bring its messages back. */
    OFF,
    /**
     * Rows go through a bounded buffer and are written in batches: a send does not wait for the database. What
     * Redis loses in the buffer's lag is not restored; {@link JdbcJournal#stats()} tells the lag.
     */
    ASYNC,
    /** A send returns only after its row has committed (rows of concurrent sends commit together). */
    SYNC
}
