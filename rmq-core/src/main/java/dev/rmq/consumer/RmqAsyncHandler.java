package dev.rmq.consumer;

import java.util.concurrent.CompletionStage;

/**
 * Handles one message without holding a thread until the work is done: it starts the work and returns a stage that
 * completes when the work does. The message is committed when the stage completes with a success (or null), rolled
 * back for a retry (or sent to the dead queue once its retries are spent) when it completes with a failure or a
 * retry, and sent to the dead queue when it completes with {@link ConsumeResult#dead(String)}.
 *
 * <p>Within one slot the next message is not started until the stage of the previous one has completed, so
 * messages of one slot are still handled one after another, by one consumer in the cluster. The leases of the
 * message and of the rest of its poll are extended while the stage is pending. A stopping container waits for a
 * pending stage until its shutdown timeout, then hands the message back without counting an attempt; the work may
 * still finish, but its outcome is no longer acknowledged, and the message is delivered again.
 */
@FunctionalInterface
public interface RmqAsyncHandler<T> {

    /**
     * Starts handling {@code message}. Throwing here counts as a failure of the message, like a stage that
     * completes exceptionally; returning null counts as a success.
     */
    CompletionStage<ConsumeResult> handle(RmqMessage<T> message) throws Exception;
}
