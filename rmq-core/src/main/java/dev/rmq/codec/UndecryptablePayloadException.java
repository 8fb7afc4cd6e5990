package dev.rmq.codec;

import org.jspecify.annotations.Nullable;

/**
 * A payload that cannot be decrypted: its key is not in the client's key ring, or its bytes fail their
 * authentication. Such a message goes to the dead queue as {@code undecryptable}, with its bytes; it decrypts once
 * requeued after the key is back in the ring.
 */
public class UndecryptablePayloadException extends PayloadCodecException {

    private static final long serialVersionUID = 1L;

    public UndecryptablePayloadException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
