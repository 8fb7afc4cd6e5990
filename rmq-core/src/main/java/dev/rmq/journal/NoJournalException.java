package dev.rmq.journal;

/** Thrown when something needs a journal, a message's history for one, and the client has none. */
public class NoJournalException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public NoJournalException(String what) {
        super(what + " needs a journal, and this client has none: add rmq-journal-jdbc and its database"
                + " (rmq.journal.* in the starter, RmqClient.Builder.journal in Java)");
    }
}
