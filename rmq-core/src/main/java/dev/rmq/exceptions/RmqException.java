package dev.rmq.exceptions;

import org.jspecify.annotations.Nullable;

/** The base of rmq's own runtime exceptions: Redis failures and refused operations. */
public class RmqException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RmqException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
