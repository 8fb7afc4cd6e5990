package dev.rmq.internal.redis;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bytes stored for each message. A header that the Lua scripts write and read, then the content (headers
 * and payload), which only Java reads:
 *
 * <pre>
 * u8 version (2) | u8 flags | u16 attempts | f64 score | order (8 bytes)
 *   | f64 expire-at ms (flags bit 0) | f64 not-before ms (flags bit 1) | u16 error length | error (UTF-8)
 * varint header count | (varint length, UTF-8 name, varint length, UTF-8 value)* | payload (to the end)
 * </pre>
 *
 * All numbers are big-endian. A send passes only the content: the send script writes the header, since the
 * message's place among equals ({@code order}) and its expiry come from the Redis clock.
 *
 * @param attempts  deliveries so far, including the current one when the message is in flight
 * @param score     due time (epoch ms) or priority, as of the last delivery
 * @param expireAt  when its time to live runs out (epoch ms), 0 when it has none
 * @param notBefore for a priority message, when it became visible (epoch ms), 0 when at once
 * @param lastError the reason of the last failure, empty when none
 * @param headers   the message headers, in the order they were given
 * @param payload   the payload bytes
 */
public record Envelope(int attempts, double score, long expireAt, long notBefore, String lastError,
                       Map<String, String> headers, byte[] payload) {

    static final int VERSION = 2;
    /** version, flags, attempts, score, order. */
    static final int FIXED_LENGTH = 20;
    private static final int FLAG_EXPIRES = 1;
    private static final int FLAG_NOT_BEFORE = 2;

    public Envelope {
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** The content of a message being sent: its headers and payload, for the send script to put a header on. */
    public static byte[] encodeContent(Map<String, String> headers, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8 + payload.length);
        writeVarint(out, headers.size());
        for (Map.Entry<String, String> header : headers.entrySet()) {
            writeString(out, header.getKey());
            writeString(out, header.getValue());
        }
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /** How many bytes a stored message has around its payload at most, for the size limit. */
    public static int overhead(Map<String, String> headers) {
        int size = FIXED_LENGTH + 16 + 2 + 5;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            size += 10 + utf8Length(header.getKey()) + utf8Length(header.getValue());
        }
        return size;
    }

    /**
     * @throws MalformedEnvelopeException when the bytes are not an envelope this version can read
     */
    public static Envelope decode(byte[] raw) {
        if (raw == null || raw.length < FIXED_LENGTH + 2) {
            throw new MalformedEnvelopeException("envelope is " + (raw == null ? "missing" : raw.length + " bytes")
                    + ", shorter than its " + (FIXED_LENGTH + 2) + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(raw);
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            throw new MalformedEnvelopeException("envelope version " + version + " is not supported (expected " + VERSION + ")");
        }
        int flags = in.get() & 0xFF;
        int attempts = in.getShort() & 0xFFFF;
        double score = in.getDouble();
        in.position(FIXED_LENGTH);
        try {
            long expireAt = (flags & FLAG_EXPIRES) != 0 ? (long) in.getDouble() : 0;
            long notBefore = (flags & FLAG_NOT_BEFORE) != 0 ? (long) in.getDouble() : 0;
            int errorLength = in.getShort() & 0xFFFF;
            String error = readBytes(in, errorLength);
            int headerCount = readVarint(in);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < headerCount; i++) {
                String name = readBytes(in, readVarint(in));
                headers.put(name, readBytes(in, readVarint(in)));
            }
            byte[] payload = Arrays.copyOfRange(raw, in.position(), raw.length);
            return new Envelope(attempts, score, expireAt, notBefore, error, headers, payload);
        } catch (RuntimeException e) {
            throw new MalformedEnvelopeException("envelope is truncated or corrupt: " + e, e);
        }
    }

    private static void writeString(ByteArrayOutputStream out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        writeVarint(out, bytes.length);
        out.writeBytes(bytes);
    }

    private static String readBytes(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new IllegalStateException("length " + length + " exceeds the " + in.remaining() + " bytes left");
        }
        String value = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
        in.position(in.position() + length);
        return value;
    }

    private static void writeVarint(ByteArrayOutputStream out, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private static int readVarint(ByteBuffer in) {
        int value = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            int b = in.get() & 0xFF;
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalStateException("varint is longer than 5 bytes");
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Envelope e && attempts == e.attempts && Double.compare(score, e.score) == 0
                && expireAt == e.expireAt && notBefore == e.notBefore && lastError.equals(e.lastError) && headers.equals(e.headers) && Arrays.equals(payload, e.payload);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(payload) + headers.hashCode() + attempts;
    }

    @Override
    public String toString() {
        return "Envelope[attempts=" + attempts + ", score=" + score + ", expireAt=" + expireAt + ", notBefore="
                + notBefore + ", lastError=" + lastError + ", headers=" + headers
                + ", payload=" + payload.length + " bytes]";
    }
}
