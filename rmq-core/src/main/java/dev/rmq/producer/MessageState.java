package dev.rmq.producer;

/** Where a message is in its life. */
public enum MessageState {
    /** In the store, waiting for its due time or its turn. */
    WAITING,
    /** A priority message waiting out its backoff before it returns to the store. */
    RETRYING,
    /** Handed to a consumer under a lease, not yet acknowledged. */
    IN_FLIGHT,
    /** Failed more than the maximum retries, or could not be decoded. */
    DEAD
}
