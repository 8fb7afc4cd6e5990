package dev.rmq.codec;

import org.jspecify.annotations.Nullable;

/** A payload that cannot be encoded, or bytes that cannot be decoded as the requested type. */
public class PayloadCodecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PayloadCodecException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
