package dev.rmq.internal.payload;

import dev.rmq.codec.PayloadCodecException;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Raw DEFLATE at the fastest level, behind the plain length (4 bytes), so that a read allocates once, and refuses a
 * length that the stored bytes cannot inflate to, or that no payload may have, before it allocates anything.
 */
final class Deflate {

    /** The largest payload that is compressed, and so the most a stored payload may inflate to: 64 MiB. */
    static final int MAX_PLAIN_BYTES = 64 << 20;
    /** The plain length in front of the compressed bytes, big-endian. */
    private static final int LENGTH_BYTES = 4;
    /** DEFLATE expands nothing more than 1032 times (zlib's technical note): a longer claim is a lie. */
    private static final long MAX_RATIO = 1032;

    private Deflate() {
    }

    static byte[] compress(byte[] plain) {
        if (plain.length > MAX_PLAIN_BYTES) {
            throw new IllegalArgumentException("a payload of " + plain.length + " bytes is larger than the "
                    + MAX_PLAIN_BYTES + " a compressed payload may have");
        }
        // a Deflater per call, ended at once: its native memory is not left to the garbage collector, whatever the
        // thread (a pooled one per thread would pile up on virtual threads)
        Deflater deflater = new Deflater(1, true);
        try {
            deflater.setInput(plain);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 3 + 16);
            out.writeBytes(ByteBuffer.allocate(LENGTH_BYTES).putInt(plain.length).array());
            byte[] buffer = new byte[Math.min(plain.length + 64, 64 * 1024)];
            while (!deflater.finished()) {
                out.write(buffer, 0, deflater.deflate(buffer));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    static byte[] decompress(byte[] stored) {
        if (stored.length < LENGTH_BYTES) {
            throw new PayloadCodecException("compressed payload of " + stored.length + " bytes has no length", null);
        }
        int length = ByteBuffer.wrap(stored, 0, LENGTH_BYTES).getInt();
        int at = LENGTH_BYTES;
        long possible = Math.min(MAX_PLAIN_BYTES, (stored.length - at) * MAX_RATIO + 64);
        if (length < 0 || length > possible) {
            throw new PayloadCodecException("compressed payload of " + stored.length + " bytes claims " + length
                    + " bytes, more than it can inflate to", null);
        }
        Inflater inflater = new Inflater(true);
        inflater.setInput(stored, at, stored.length - at);
        byte[] plain = new byte[length];
        try {
            int done = 0;
            while (done < length) {
                int n = inflater.inflate(plain, done, length - done);
                if (n == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                done += n;
            }
            if (done == length && !inflater.finished()) {
                // a full buffer may stop zlib before the stream's end mark: one more byte, which must not come
                done += inflater.inflate(new byte[1]);
            }
            if (done != length || !inflater.finished()) {
                throw new PayloadCodecException("compressed payload inflates to " + (inflater.finished() ? done
                        : "more than " + done) + " bytes, not the " + length + " it claims", null);
            }
            return plain;
        } catch (DataFormatException e) {
            throw new PayloadCodecException("compressed payload is corrupt: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
    }
}
