package dev.rmq.producer;

/** Where a message is in its life. */
public enum MessageState {
    /** In the store, waiting for its due time or its turn; one that failed before shows it in its attempts. */
    WAITING,
    /** A priority message invisible until its not-before time. */
    DELAYED,
    /**
     * It failed, and waits out its backoff: a range-merge or fixed-time message due again later, or a priority
     * message not visible until then. Once the backoff is over it is {@link #WAITING} again, its attempts kept. The
     * same rule for every type, in the inspector, the counts, the actuator endpoint and over HTTP.
     */
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
