package dev.rmq.consumer;

/**
 * What Redis did when a delivery was ended: committed, rolled back, buried, expired, released, or nothing (its lease
 * was lost, or a cancel removed it).
 */
public enum AckOutcome {
    /** The message is done and gone. */
    COMMITTED("committed"),
    /** Rolled back: it waits out its backoff, then is delivered again. */
    RETRY("retry"),
    /** Moved to the dead queue: its retries were spent, it could not be decoded, or the handler said so. */
    DEAD("dead"),
    /** Failed after its time to live ran out, so it is not retried: dropped, or dead, as the topic says. */
    EXPIRED("expired"),
    /** A newer send of the same key was already waiting; the delivery ended and the newer message stays. */
    MERGED("merged"),
    /** Handed back unstarted: it waits again at its place, its attempt not counted. */
    RELEASED("released"),
    /** The lease had already run out (the message was recovered and may be redelivered); nothing was done. */
    STALE("stale"),
    /** The in-flight message was missing; nothing was done. */
    GONE("gone"),
    /**
     * A cancel removed the delivery while it was in flight; nothing more was done. A newer send of the key, if any,
     * waits as usual.
     */
    CANCELLED("cancelled");

    private final String scriptName;

    AckOutcome(String scriptName) {
        this.scriptName = scriptName;
    }

    /** The word the acknowledging script answers with. */
    public String scriptName() {
        return scriptName;
    }
}
