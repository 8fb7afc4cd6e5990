package dev.rmq.journal.jdbc;

/** What sends do while the database is out of reach and the journal's buffer is full. */
public enum WhenUnavailable {
    /**
     * Sends wait for room in the buffer, up to the journal's block timeout, then fail with {@link
     * JournalUnavailableException} (Redis holds the message; only its row is missing). Nothing goes unjournaled.
     */
    BLOCK,
    /**
     * Sends go on; the rows that find no room are dropped, counted ({@link JournalStats#gap()}) and logged. A restore
     * cannot bring back what those rows would have described.
     */
    CONTINUE
}
