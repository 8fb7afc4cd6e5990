package dev.rmq.consumer;

import org.jspecify.annotations.Nullable;

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
 * pending stage until its handlers' share of the shutdown timeout is over (the last quarter, at most 2 s, is kept for
 * giving the slots back), then gives it up: the work may still finish, but its outcome is no longer acknowledged. On
 * an at-least-once topic the message goes back without counting an attempt and is delivered again; on an
 * at-most-once topic it had left Redis when taken, and is lost.
 */
@FunctionalInterface
public interface RmqAsyncHandler<T> {

    /**
     * Starts handling {@code message}. Throwing here counts as a failure of the message, like a stage that
     * completes exceptionally; returning null counts as a success.
     */
    @Nullable CompletionStage<ConsumeResult> handle(RmqMessage<T> message) throws Exception;
}
