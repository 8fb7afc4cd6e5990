package dev.rmq.server.pull;

/**
 * A delivery token the server does not hold: it never was one, its message was settled already, its lease ran
 * out, or the server stopped and handed its message back. Whatever the case, nothing was done, and a message
 * not settled is delivered again. Also what an extension of a token whose message was cancelled in flight gets:
 * the token is still held, for a settle that answers {@code CANCELLED}, and the message is not delivered again.
 */
public class UnknownDeliveryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UnknownDeliveryException(String message) {
        super(message);
    }
}
