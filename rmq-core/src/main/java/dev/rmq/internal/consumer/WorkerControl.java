package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.SlotSession;

/** What a worker's batch needs of the worker: whether to go on, and how much it has in hand. */
interface WorkerControl {

    /**
     * Whether the worker must let the slot go before the next handler: revoked, or stopping and past the stop's
     * deadline or interrupted by the stop.
     */
    boolean mustLetGo(SlotSession<?> session);

    /**
     * Whether a handler's pending result must no longer be waited for: the worker stops, and the stop's deadline
     * has passed or the stop interrupted the thread. An interrupt a handler left set on the thread while the worker
     * runs is not a stop. A revoke alone does not end the wait: the slot is let go after the message.
     */
    boolean outOfTime();

    /** Whether the worker is stopping: failures it meets are then expected, counted, and not logged one by one. */
    boolean stopping();

    /**
     * Whether the endings of the batch just run may go with the session's next poll instead of a call of their own:
     * the slot has more due at once, or its next poll comes within a short hold (see {@link HeldEndings}). The
     * worker then sends them with that poll, or alone once the hold is over.
     */
    boolean carries(SlotSession<?> session);

    /** Sends alone the endings of other slots whose hold is over: called between the handlers of a batch. */
    void sendHeldEndings();

    /**
     * Clears the thread's interrupt, which was meant for a handler or a wait, so that the endings of what finished
     * can still be sent; unless the stop is giving the worker's slots back already: then the interrupt stays, and
     * every call to Redis the worker still makes fails at once instead of waiting for an answer.
     */
    void clearInterruptForEndings();

    /**
     * Clears an interrupt a handler left set on the thread (code that caught {@code InterruptedException} and
     * restored the flag), while the worker runs: it was no stop, and left set it would fail the calls to Redis that
     * follow and every wait of the next handler. During a stop the interrupt stays: it may be the stop's.
     */
    void clearStrayInterrupt();

    /** The deliveries of the batch that have not been acknowledged yet; 0 once the batch is done. */
    void inHand(int deliveries);
}
