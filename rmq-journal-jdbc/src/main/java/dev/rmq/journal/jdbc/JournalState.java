package dev.rmq.journal.jdbc;

import java.util.Locale;

/** A message's state in the journal, as its {@code state} columns spell it. */
public enum JournalState {
    SENT(false),
    /** A later send of the key merged into the waiting message: its content is the latest send's. */
    MERGED(false),
    /** Handed to a consumer, with the attempt; final on an at-most-once topic. */
    DELIVERED(false),
    ACKED(true),
    /** Failed; it waits out its backoff and is delivered again. */
    RETRIED(false),
    DEAD(true),
    CANCELLED(true),
    /** Its due time or priority was changed by key. */
    RESCHEDULED(false),
    /** Its time to live ran out. */
    EXPIRED(true),
    /** Put back into Redis by a restore. */
    RESTORED(false),
    /** Handed back unstarted by a consumer that stopped: it waits again, its attempt not counted. */
    RELEASED(false);

    private final boolean finished;
    private final String column;

    JournalState(boolean finished) {
        this.finished = finished;
        this.column = name().toLowerCase(Locale.ROOT);
    }

    /** Whether a message in this state is done with: restore leaves it alone, and retention prunes it. */
    public boolean finished() {
        return finished;
    }

    /** The word in the {@code state} columns. */
    public String column() {
        return column;
    }

    /** @throws IllegalArgumentException for a word no version of the journal writes */
    public static JournalState fromColumn(String word) {
        for (JournalState state : values()) {
            if (state.column.equals(word)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown journal state \"" + word + "\"");
    }
}
