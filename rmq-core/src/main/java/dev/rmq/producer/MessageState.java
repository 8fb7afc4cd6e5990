package dev.rmq.producer;

/** Where a message is in its life. */
public enum MessageState {
    /** In the store, waiting for its due time or its turn. */
    WAITING,
    /** A priority message invisible until its not-before time. */
    DELAYED,
    /** A priority message waiting out its backoff before it returns to the store. */
    RETRYING,
    /**
     * Sent while a delivery of the same key was in flight: it waits until that delivery ends, then joins the
     * waiting messages as a new one. One key is never handled twice at once.
     */
    PARKED,
    /** Handed to a consumer under a lease, not yet acknowledged. */
    IN_FLIGHT,
    /** Failed more than the maximum retries, or could not be decoded. */
    DEAD
}
