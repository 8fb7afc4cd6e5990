package dev.rmq.exceptions;

/** The base of rmq's own runtime exceptions: Redis failures and refused operations. */
public class RmqException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RmqException(String message, Throwable cause) {
        super(message, cause);
    }
}
