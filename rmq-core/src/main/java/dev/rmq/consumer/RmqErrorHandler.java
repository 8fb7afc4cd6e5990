package dev.rmq.consumer;

import dev.rmq.codec.PayloadCodecException;

import java.util.List;

/**
 * Decides what becomes of a message whose handler threw: retry it after the topic's backoff, retry it at once, or
 * send it to the dead queue. A container has one ({@link #retryingExcept(List)} with {@link #NOT_RETRYABLE} by
 * default); every failure is logged either way, with what happens next.
 */
@FunctionalInterface
public interface RmqErrorHandler {

    /** Exceptions that retrying cannot mend by default: a payload that cannot be read as the handler's type. */
    List<Class<? extends Throwable>> NOT_RETRYABLE = List.of(PayloadCodecException.class);

    /** Retries every failure except {@link #NOT_RETRYABLE}, which go to the dead queue at once. */
    RmqErrorHandler DEFAULT = retryingExcept(NOT_RETRYABLE);

    /**
     * What to do with {@code message} after {@code error}.
     *
     * @return {@link ConsumeResult#retry}, {@link ConsumeResult#retryNow} or {@link ConsumeResult#dead}; a success is
     *         refused, since the handler did not finish
     */
    ConsumeResult handle(RmqMessage<?> message, Exception error);

    /**
     * Sends a failure to the dead queue when the exception, or one of its causes, is an instance of one of
     * {@code notRetryable}; retries it after the backoff otherwise.
     */
    static RmqErrorHandler retryingExcept(List<Class<? extends Throwable>> notRetryable) {
        if (notRetryable == null || notRetryable.stream().anyMatch(type -> type == null)) {
            throw new IllegalArgumentException("the exceptions not worth retrying must not be or contain null");
        }
        List<Class<? extends Throwable>> classes = List.copyOf(notRetryable);
        return (message, error) -> {
            for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
                for (Class<? extends Throwable> type : classes) {
                    if (type.isInstance(t)) {
                        return ConsumeResult.dead("not retryable: " + describe(error));
                    }
                }
            }
            return ConsumeResult.retry(describe(error));
        };
    }

    /** The exception's class and message, as a failure's reason. */
    static String describe(Throwable error) {
        return error.getMessage() == null ? error.getClass().getName()
                : error.getClass().getName() + ": " + error.getMessage();
    }
}
