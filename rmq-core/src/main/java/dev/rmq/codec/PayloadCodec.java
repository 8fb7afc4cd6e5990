package dev.rmq.codec;

import java.lang.reflect.Type;

/**
 * Turns payloads into bytes and back. Encoding must be deterministic: equal payloads must give equal
 * bytes, because the default merge key is derived from them.
 */
public interface PayloadCodec {

    /**
     * @throws PayloadCodecException when the payload cannot be encoded
     */
    byte[] encode(Object payload);

    /**
     * @throws PayloadCodecException when the bytes are not a {@code type}
     */
    Object decode(byte[] bytes, Type type);
}
