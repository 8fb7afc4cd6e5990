package dev.rmq.consumer;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link RmqBatchHandler} to say which message of its batch failed: the messages before it are
 * committed, it is failed with this exception's cause (the container's error handler decides what that means), and
 * those after it are handed back unstarted, with their place and attempt count unchanged.
 */
public class RmqBatchFailedException extends RuntimeException {

    private final int index;
    private final transient @Nullable RmqMessage<?> failed;

    /**
     * @param index the failed message's place in the batch, from 0
     * @param cause why it failed; becomes the message's last error
     */
    public RmqBatchFailedException(int index, Throwable cause) {
        super("message #" + index + " of the batch failed" + describe(cause), cause);
        if (index < 0) {
            throw new IllegalArgumentException("the index of the failed message must be zero or more, was " + index);
        }
        this.index = index;
        this.failed = null;
    }

    /**
     * @param message the message that failed, one of the batch the handler was given
     * @param cause   why it failed; becomes the message's last error
     */
    public RmqBatchFailedException(RmqMessage<?> message, Throwable cause) {
        super("message '" + (message == null ? null : message.key()) + "' of the batch failed" + describe(cause),
                cause);
        if (message == null) {
            throw new IllegalArgumentException("the failed message must not be null; name it by index otherwise");
        }
        this.index = -1;
        this.failed = message;
    }

    /** The failed message's place in the batch, or -1 when it was named by the message itself. */
    public int index() {
        return index;
    }

    /** The failed message, when it was named by the message itself; null when named by index. */
    public @Nullable RmqMessage<?> failedMessage() {
        return failed;
    }

    private static String describe(Throwable cause) {
        return cause == null ? "" : ": " + cause;
    }
}
