package dev.rmq.producer;

import org.jspecify.annotations.Nullable;

/**
 * What became of one message of a batch, as far as rmq knows.
 *
 * @param message the message as it was given
 * @param status  where it is
 * @param receipt what the send did, when it was {@link Status#STORED stored} (added or merged) or left out as a
 *                {@link Status#DUPLICATE duplicate} (kept or throttled); null otherwise
 * @param error   why it was refused, or what made its outcome unknown; null when it has a receipt
 */
public record SendOutcome(OutgoingMessage message, Status status, @Nullable SendReceipt receipt,
                          @Nullable RuntimeException error) {

    /** Where a message of a batch is. */
    public enum Status {
        /** In Redis: added, or merged into a waiting message. */
        STORED,
        /**
         * Not written, and not an error: its repeated-key rule left it out, since a message of its key waits
         * ({@link SendReceipt.Outcome#KEPT}) or was accepted within the throttle window
         * ({@link SendReceipt.Outcome#THROTTLED}). Sending it again gives the same answer while that holds.
         */
        DUPLICATE,
        /**
         * Not written, for the reason in {@link SendOutcome#error()}: its slot's backlog was full
         * ({@link BacklogFullException}), or its fixed time lay further behind the Redis clock than the topic's
         * late tolerance ({@link IllegalArgumentException}). The rest of its batch is unaffected.
         */
        REFUSED,
        /**
         * Redis did not answer for its script call (a timeout, a reset connection, a failover): the message may
         * or may not be stored. Sending it again is safe while it waits, since a send of a waiting key merges
         * into it; once it has been consumed, a second send is a new message.
         */
        UNKNOWN
    }

    public SendOutcome {
        if (message == null || status == null) {
            throw new IllegalArgumentException("an outcome has its message and its status");
        }
        boolean answered = status == Status.STORED || status == Status.DUPLICATE;
        if (answered != (receipt != null) || answered == (error != null)
                || (receipt != null && receipt.written() != (status == Status.STORED))) {
            throw new IllegalArgumentException("a stored or duplicate outcome has a receipt that says so and no error,"
                    + " any other an error and no receipt; was " + status + " with receipt " + receipt + " and error "
                    + error);
        }
    }

    /** A send that was answered: stored when its receipt says written, else a duplicate. */
    public static SendOutcome of(OutgoingMessage message, SendReceipt receipt) {
        return new SendOutcome(message, receipt.written() ? Status.STORED : Status.DUPLICATE, receipt, null);
    }

    public static SendOutcome refused(OutgoingMessage message, RuntimeException reason) {
        return new SendOutcome(message, Status.REFUSED, null, reason);
    }

    public static SendOutcome unknown(OutgoingMessage message, RuntimeException cause) {
        return new SendOutcome(message, Status.UNKNOWN, null, cause);
    }
}
