package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;

/**
 * What became of one message of a batch.
 *
 * @param message the message as it was given
 * @param receipt what the send did, when it was stored (added or merged); null otherwise
 * @param error   why it was not stored, when it was refused; null otherwise
 */
public record SendOutcome(OutgoingMessage message, SendReceipt receipt, RmqException error) {

    /** Where the message is. */
    public enum Status {
        /** In Redis: added, or merged into a waiting message. */
        STORED,
        /** Not written, for the reason in {@link SendOutcome#error()}; the rest of its batch is unaffected. */
        REFUSED
    }

    public SendOutcome {
        if (message == null || (receipt == null) == (error == null)) {
            throw new IllegalArgumentException("an outcome has its message and either a receipt or an error");
        }
    }

    public Status status() {
        return receipt != null ? Status.STORED : Status.REFUSED;
    }
}
