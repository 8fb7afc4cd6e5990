package dev.rmq.internal.consumer;

import dev.rmq.internal.script.AckCall;

/**
 * Where the outcomes of one worker's batch go. An at-least-once topic acknowledges them to Redis in one call
 * ({@link Acknowledger}); an at-most-once topic has nothing to acknowledge, and only hands back what a stopping
 * worker never started ({@link AtMostOnceSettlement}).
 */
interface Settlement {

    /**
     * The outcome of one delivery, sent with the next {@link #flush}; {@code cause} is what the handler threw, null
     * when it returned its outcome. A failure is logged once its outcome is known.
     */
    void add(AckCall.Op op, Delivery<?> delivery, String reason, Throwable cause);

    /** A message that could not even be decoded: it has a key and a token, no delivery. */
    void addUndecodable(String key, long token, String reason);

    /** How many outcomes are gathered and not sent yet. */
    int pending();

    /**
     * Sends the outcomes gathered so far. Returns false when the worker turned out to have lost the slot: the
     * caller must let it go.
     */
    boolean flush(SlotState state, WorkerControl control);

    /** Whether the deliveries hold leases in Redis that a long batch must renew. */
    boolean leased();
}
