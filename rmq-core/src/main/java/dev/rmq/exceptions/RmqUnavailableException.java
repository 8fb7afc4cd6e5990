package dev.rmq.exceptions;

import org.jspecify.annotations.Nullable;

/**
 * Redis did not answer: it is down, unreachable, or too slow for the client's timeout. After a timeout
 * the call may still have been applied; a send can be repeated safely, since a repeated send with the
 * same key merges.
 */
public class RmqUnavailableException extends RmqException {

    private static final long serialVersionUID = 1L;

    public RmqUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
