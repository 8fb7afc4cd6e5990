package dev.rmq.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/** Unique 64-byte payloads: a sequence number in hex, then filler. */
final class Payloads {

    static final int SIZE = 64;

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TEMPLATE = new byte[SIZE];
    private static final AtomicLong SEQUENCE = new AtomicLong();

    static {
        Arrays.fill(TEMPLATE, (byte) '.');
        byte[] tag = ":rmq-benchmark-payload:".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(tag, 0, TEMPLATE, 16, tag.length);
    }

    private Payloads() {
    }

    /** A payload no other call of this JVM returns. */
    static byte[] next() {
        byte[] payload = TEMPLATE.clone();
        long seq = SEQUENCE.incrementAndGet();
        for (int i = 15; i >= 0; i--) {
            payload[i] = HEX[(int) (seq & 0xF)];
            seq >>>= 4;
        }
        return payload;
    }

    /** A payload no other call of this JVM returns, of {@code size} bytes (16 to 64): the first ones of {@link #next}. */
    static byte[] next(int size) {
        if (size < 16 || size > SIZE) {
            throw new IllegalArgumentException("a payload is 16 to " + SIZE + " bytes here, not " + size);
        }
        return Arrays.copyOf(next(), size);
    }

    /** A unique payload whose first 8 bytes carry {@code value} (big-endian), e.g. a due time. */
    static byte[] carrying(long value) {
        byte[] payload = next();
        for (int i = 7; i >= 0; i--) {
            payload[i] = (byte) value;
            value >>>= 8;
        }
        return payload;
    }

    static long carried(byte[] payload) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (payload[i] & 0xFF);
        }
        return value;
    }
}
