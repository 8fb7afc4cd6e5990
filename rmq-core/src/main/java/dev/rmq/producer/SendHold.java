package dev.rmq.producer;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Where sends wait for a unit of work around them to end: a database transaction, for the Spring Boot starter's
 * producer. Given to {@code RmqClient.Builder.sendHold}; the producer asks it at every send.
 *
 * <p>Implementations are called on the sending thread, and must be thread-safe.
 */
public interface SendHold {

    /** Whether a unit of work is active on the calling thread, so that a send now would be held. */
    boolean active();

    /**
     * Holds a send until the unit of work around the calling thread ends, when there is one: {@code send} is to run
     * once it has committed (on the thread that committed it), {@code drop} once it has rolled back or failed, and
     * exactly one of them, once. Sends held by one unit of work run in the order they were held. {@code send}
     * starts the send and returns its stage, which completes once Redis has answered (failures are logged by
     * the producer): an implementation may wait for it, so that what follows the commit sees the messages queued.
     *
     * @return true when held; false when no unit of work is active, and the message is to be sent at once
     */
    boolean hold(Supplier<? extends CompletionStage<?>> send, Runnable drop);
}
