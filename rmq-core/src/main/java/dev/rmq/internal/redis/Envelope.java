package dev.rmq.internal.redis;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bytes stored for each message. A fixed header that the Lua scripts read and rewrite, then the
 * headers and payload, which only Java reads:
 *
 * <pre>
 * u8 version (1) | u16 attempts | f64 score | u16 error length | error (UTF-8)
 * varint header count | (varint length, UTF-8 name, varint length, UTF-8 value)* | payload (to the end)
 * </pre>
 *
 * All numbers are big-endian. {@code attempts} counts deliveries so far; {@code score} is the due time in
 * ms or the priority, as of the last delivery; {@code error} is the last failure's reason.
 *
 * @param attempts  deliveries so far, including the current one when the message is in flight
 * @param score     due time (epoch ms) or priority at the last delivery; 0 before the first
 * @param lastError the reason of the last failure, empty when none
 * @param headers   the message headers, in the order they were given
 * @param payload   the payload bytes
 */
public record Envelope(int attempts, double score, String lastError, Map<String, String> headers, byte[] payload) {

    static final int VERSION = 1;
    static final int HEADER_LENGTH = 13;

    public Envelope {
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** The envelope of a message being sent: no attempts yet, no error. */
    public static byte[] encodeNew(Map<String, String> headers, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER_LENGTH + 8 + payload.length);
        ByteBuffer fixed = ByteBuffer.allocate(HEADER_LENGTH);
        fixed.put((byte) VERSION).putShort((short) 0).putDouble(0.0).putShort((short) 0);
        out.writeBytes(fixed.array());
        writeVarint(out, headers.size());
        for (Map.Entry<String, String> header : headers.entrySet()) {
            writeString(out, header.getKey());
            writeString(out, header.getValue());
        }
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /** How many bytes {@link #encodeNew} adds around the payload, for the size limit. */
    public static int overhead(Map<String, String> headers) {
        int size = HEADER_LENGTH + 5;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            size += 10 + utf8Length(header.getKey()) + utf8Length(header.getValue());
        }
        return size;
    }

    /**
     * @throws MalformedEnvelopeException when the bytes are not an envelope this version can read
     */
    public static Envelope decode(byte[] raw) {
        if (raw == null || raw.length < HEADER_LENGTH) {
            throw new MalformedEnvelopeException("envelope is " + (raw == null ? "missing" : raw.length + " bytes")
                    + ", shorter than its " + HEADER_LENGTH + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(raw);
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            throw new MalformedEnvelopeException("envelope version " + version + " is not supported (expected " + VERSION + ")");
        }
        int attempts = in.getShort() & 0xFFFF;
        double score = in.getDouble();
        int errorLength = in.getShort() & 0xFFFF;
        try {
            String error = readBytes(in, errorLength);
            int headerCount = readVarint(in);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < headerCount; i++) {
                String name = readBytes(in, readVarint(in));
                headers.put(name, readBytes(in, readVarint(in)));
            }
            byte[] payload = Arrays.copyOfRange(raw, in.position(), raw.length);
            return new Envelope(attempts, score, error, headers, payload);
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
                && lastError.equals(e.lastError) && headers.equals(e.headers) && Arrays.equals(payload, e.payload);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(payload) + headers.hashCode() + attempts;
    }

    @Override
    public String toString() {
        return "Envelope[attempts=" + attempts + ", score=" + score + ", lastError=" + lastError + ", headers=" + headers
                + ", payload=" + payload.length + " bytes]";
    }
}
