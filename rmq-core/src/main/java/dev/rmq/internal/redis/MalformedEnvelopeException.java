package dev.rmq.internal.redis;

/** Stored bytes that are not a readable message; such a message goes to the dead queue with this reason. */
public class MalformedEnvelopeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MalformedEnvelopeException(String message) {
        super(message);
    }

    public MalformedEnvelopeException(String message, Throwable cause) {
        super(message, cause);
    }
}
