package dev.rmq.internal.payload;

import dev.rmq.codec.PayloadCodecException;

import java.io.ByteArrayOutputStream;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Raw DEFLATE at the fastest level, behind a varint of the plain length, so that a read allocates once and refuses a
 * length no payload can have before it inflates anything.
 */
final class Deflate {

    /** No payload inflates beyond what Redis can hold in one value. */
    static final int MAX_PLAIN_BYTES = 512 * 1024 * 1024;

    // a Deflater holds native memory that only end() frees: one per thread, reset between uses
    private static final ThreadLocal<Deflater> DEFLATERS = ThreadLocal.withInitial(() -> new Deflater(1, true));
    private static final ThreadLocal<Inflater> INFLATERS = ThreadLocal.withInitial(() -> new Inflater(true));

    private Deflate() {
    }

    static byte[] compress(byte[] plain) {
        Deflater deflater = DEFLATERS.get();
        deflater.reset();
        deflater.setInput(plain);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 3 + 16);
        writeVarint(out, plain.length);
        byte[] buffer = new byte[Math.min(plain.length + 64, 64 * 1024)];
        while (!deflater.finished()) {
            out.write(buffer, 0, deflater.deflate(buffer));
        }
        return out.toByteArray();
    }

    static byte[] decompress(byte[] stored) {
        int length = 0;
        int at = 0;
        for (int shift = 0; ; shift += 7) {
            if (at >= stored.length || shift > 28) {
                throw new PayloadCodecException("compressed payload of " + stored.length + " bytes has no length", null);
            }
            int b = stored[at++] & 0xFF;
            length |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
        }
        if (length < 0 || length > MAX_PLAIN_BYTES) {
            throw new PayloadCodecException("compressed payload claims " + length + " bytes, more than the "
                    + MAX_PLAIN_BYTES + " any payload can have", null);
        }
        Inflater inflater = INFLATERS.get();
        inflater.reset();
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
            if (done != length || !inflater.finished()) {
                throw new PayloadCodecException("compressed payload inflates to " + (inflater.finished() ? done
                        : "more than " + done) + " bytes, not the " + length + " it claims", null);
            }
            return plain;
        } catch (DataFormatException e) {
            throw new PayloadCodecException("compressed payload is corrupt: " + e.getMessage(), e);
        }
    }

    private static void writeVarint(ByteArrayOutputStream out, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
