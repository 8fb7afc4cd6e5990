package dev.rmq.consumer;

/**
 * Handles one message. Returning {@link ConsumeResult#success()} commits it; returning
 * {@link ConsumeResult#retry(String)} or throwing rolls it back for a retry after backoff (or to the dead
 * queue once the retries are spent); returning {@link ConsumeResult#dead(String)} sends it to the dead
 * queue at once.
 */
@FunctionalInterface
public interface RmqHandler<T> {

    ConsumeResult handle(RmqMessage<T> message) throws Exception;

    /** A handler that commits whenever {@code body} returns normally. */
    static <T> RmqHandler<T> committing(MessageBody<T> body) {
        return message -> {
            body.accept(message);
            return ConsumeResult.success();
        };
    }

    /** The body of a handler that has no result to give. */
    @FunctionalInterface
    interface MessageBody<T> {
        void accept(RmqMessage<T> message) throws Exception;
    }
}
