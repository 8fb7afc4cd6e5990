package dev.rmq.topic;

/** What becomes of a message whose time to live runs out before it is delivered. */
public enum ExpiryAction {

    /** It is removed, and counted in {@code rmq.expired}. */
    DROP,

    /** It moves to the dead queue with the reason {@code expired}, and is counted in {@code rmq.expired}. */
    DEAD
}
