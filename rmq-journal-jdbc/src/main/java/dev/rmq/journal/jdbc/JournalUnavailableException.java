package dev.rmq.journal.jdbc;

import dev.rmq.exceptions.RmqException;

/**
 * The journal could not write a row in time: its database is out of reach or too slow. For a send, Redis holds the
 * message; only its row is missing, so a restore would not bring it back.
 */
public class JournalUnavailableException extends RmqException {

    public JournalUnavailableException(String message) {
        super(message, null);
    }

    public JournalUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
