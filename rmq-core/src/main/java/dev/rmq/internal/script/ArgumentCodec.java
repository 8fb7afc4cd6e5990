package dev.rmq.internal.script;

import org.redisson.client.codec.BaseCodec;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.Decoder;
import org.redisson.client.protocol.Encoder;

import java.nio.ByteBuffer;

/**
 * The codec of script calls: arguments go out as {@link ByteBuffer}s wrapping their bytes, replies come back as
 * {@code byte[]}, as with {@link ByteArrayCodec}.
 *
 * <p>Why not {@code byte[]} arguments: Redisson, unless a client's configuration turns its object references off
 * (they are on by default), asks of every argument whether its class is a Redisson live object. For a class outside
 * {@code java.*} that is a look-up in a shared least-recently-used cache, which moves the entry to the cache's
 * tail under a lock on every read; {@code byte[]}'s class name is {@code [B}. For a {@code java.nio} buffer the
 * answer is no at once. That look-up was a third of what Redisson spent encoding a script call (JFR, single sends).
 * A call of its own skips that encoding altogether ({@link ScriptInvoker}); the calls of a pipeline, which go through
 * Redisson's batch, are encoded this way.
 */
final class ArgumentCodec extends BaseCodec {

    static final ArgumentCodec INSTANCE = new ArgumentCodec();

    private static final Encoder ENCODER = in -> ByteArrayCodec.INSTANCE.getValueEncoder().encode(
            in instanceof ByteBuffer buffer ? buffer.array() : in);

    private ArgumentCodec() {
    }

    /** A call's arguments, each wrapped whole (the encoder sends a buffer's whole array), as this codec sends them. */
    static Object[] wrap(byte[][] argv) {
        Object[] wrapped = new Object[argv.length];
        for (int i = 0; i < argv.length; i++) {
            wrapped[i] = ByteBuffer.wrap(argv[i]);
        }
        return wrapped;
    }

    @Override
    public Decoder<Object> getValueDecoder() {
        return ByteArrayCodec.INSTANCE.getValueDecoder();
    }

    @Override
    public Encoder getValueEncoder() {
        return ENCODER;
    }
}
