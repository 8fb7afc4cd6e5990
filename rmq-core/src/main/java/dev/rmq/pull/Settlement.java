package dev.rmq.pull;

/** How a pulled delivery is ended when it is settled by its reference ({@link RmqPuller#settle}). */
public enum Settlement {
    /** Done, as {@link PulledMessage#ack()}. */
    ACK,
    /** Failed, retried after the backoff, as {@link PulledMessage#retry(String)}. */
    RETRY,
    /** Failed, retried at once, as {@link PulledMessage#retryNow(String)}. */
    RETRY_NOW,
    /** Dead at once, as {@link PulledMessage#dead(String)}. */
    DEAD,
    /** Handed back without an attempt, as {@link PulledMessage#release()}. */
    RELEASE;

    /** Whether it records a failure, and so needs a reason. */
    public boolean failure() {
        return this == RETRY || this == RETRY_NOW || this == DEAD;
    }
}
