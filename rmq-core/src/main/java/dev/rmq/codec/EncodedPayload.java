package dev.rmq.codec;

/**
 * A payload that the client's codec has already encoded, such as one an outbox kept: a send stores its bytes as they
 * are, whatever the codec, and a listener decodes them as it decodes any payload of the client's.
 *
 * @param bytes the encoded payload
 */
public record EncodedPayload(byte[] bytes) {

    public EncodedPayload {
        if (bytes == null) {
            throw new IllegalArgumentException("an encoded payload needs its bytes, was null");
        }
    }

    /** The bytes a send stores for {@code payload}: its own when it is already encoded, else {@code codec}'s. */
    public static byte[] bytesOf(PayloadCodec codec, Object payload) {
        return payload instanceof EncodedPayload encoded ? encoded.bytes() : codec.encode(payload);
    }
}
