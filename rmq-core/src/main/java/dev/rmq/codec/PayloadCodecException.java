package dev.rmq.codec;

/** A payload that cannot be encoded, or bytes that cannot be decoded as the requested type. */
public class PayloadCodecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PayloadCodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
