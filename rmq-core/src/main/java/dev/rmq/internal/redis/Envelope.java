package dev.rmq.internal.redis;

import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bytes stored for each message. A header that Java writes for a send and the Lua scripts read and rewrite,
 * then the content (headers and payload), which only Java reads:
 *
 * <pre>
 * u8 version (2) | u8 flags | u16 attempts | f64 score | place among equals (8 bytes, flag 4)
 *   | f64 expire-at ms (flag 1) | f64 not-before ms (flag 2) | u16 releases (flag 8) | u16 error length | error (UTF-8)
 * varint header count | (varint length, UTF-8 name, varint length, UTF-8 value)* | payload (to the end)
 * </pre>
 *
 * All numbers are big-endian. For a send, Java writes the time fields relative to the Redis clock, which only the
 * send script reads: a time to live in ms, and a not-before time as an epoch ms or, when negative, a delay. The
 * script makes them absolute and, on a FIFO topic, adds the place.
 *
 * @param attempts  deliveries so far, including the current one when the message is in flight; a delivered envelope
 *                  may hold 0 on its first delivery, which the scripts then send as it was stored (see
 *                  {@link #deliveredAttempt})
 * @param score     due time (epoch ms) or priority, as of the last delivery, or as the send wrote it
 * @param expireAt  when its time to live runs out (epoch ms), 0 when it has none
 * @param notBefore for a priority message, when it became visible (epoch ms), 0 when at once
 * @param releases  how many times the program handed it back without an attempt (only the scripts write it)
 * @param lastError the reason of the last failure, empty when none
 * @param deadReason for a dead message, the code of why it died ({@code expired}, {@code retries_spent}, ...), as
 *                   the scripts write it in front of the error with byte 31; empty otherwise, and for a message that
 *                   died before reasons were kept
 * @param headers   the message headers, in the order they were given
 * @param payload   the payload bytes
 */
public record Envelope(int attempts, double score, long expireAt, long notBefore, int releases, String lastError,
                       String deadReason, Map<String, String> headers, byte[] payload) {

    static final int VERSION = 2;
    /** version, flags, attempts, score. */
    static final int FIXED_LENGTH = 12;
    private static final int FLAG_EXPIRES = 1;
    private static final int FLAG_NOT_BEFORE = 2;
    private static final int FLAG_ORDERED = 4;
    private static final int FLAG_RELEASED = 8;
    /** The longest error the scripts keep, in bytes (lib.lua's MAX_ERROR_LEN). */
    static final int MAX_ERROR_BYTES = 1024;
    /** Ends a dead message's reason code, in front of its error. */
    private static final char REASON_END = '\u001f';
    private static final byte[] NO_BYTES = new byte[0];
    private static final byte[][] NO_BYTES_ARRAY = new byte[0][];

    /**
     * The headers kept as given, in their order; none as the shared empty map, which most messages carry (one that
     * answers a null name as the others do, where {@code Map.of()} would throw).
     */
    public Envelope {
        headers = headers.isEmpty() ? Collections.emptyMap()
                : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * The envelope of a message being sent: no attempts, no error.
     *
     * @param score     the score it is sent with where the sender knows it: a priority or a fixed time (see
     *                  {@link #sentScore}). A message taken for the first time at the score its envelope holds is
     *                  delivered as it was stored, without a rewrite
     * @param ttlMs     its time to live, 0 for none
     * @param notBefore for a priority message, an epoch ms, a negative delay in ms, or 0 for at once
     */
    public static byte[] encodeNew(Map<String, String> headers, byte[] payload, double score, long ttlMs,
                                   long notBefore) {
        return encode(0, score, ttlMs, notBefore, "", headers, payload);
    }

    /**
     * The score a send's envelope carries: the priority or fixed time it is sent with; 0 for a range-merge message,
     * whose due time the send script reckons by the Redis clock.
     */
    public static double sentScore(TopicType type, long value) {
        return type == TopicType.RANGE_MERGE ? 0 : value;
    }

    /**
     * The envelope of a message put back as it was stored: its attempts, its score, absolute times and the error of
     * its last failure. Only the restore script reads it as it is.
     *
     * @param expireAt  when its time to live runs out (epoch ms), 0 for never
     * @param notBefore when a priority message becomes visible (epoch ms), 0 for at once
     * @param lastError the reason of its last failure, empty when none; cut to {@value #MAX_ERROR_BYTES} bytes, as
     *                  the scripts cut what they store
     */
    public static byte[] encodeStored(int attempts, double score, long expireAt, long notBefore, String lastError,
                                      Map<String, String> headers, byte[] payload) {
        return encode(attempts, score, expireAt, notBefore, lastError, headers, payload);
    }

    /**
     * Written into one array of the envelope's size, which is measured first: a growing stream and its copy out, and
     * a buffer for the header, cost a send three arrays, the size of its payload twice.
     */
    private static byte[] encode(int attempts, double score, long expiry, long notBefore, String lastError,
                                 Map<String, String> headers, byte[] payload) {
        int flags = (expiry > 0 ? FLAG_EXPIRES : 0) | (notBefore != 0 ? FLAG_NOT_BEFORE : 0);
        byte[] error = utf8Prefix(lastError, MAX_ERROR_BYTES);
        byte[][] names = NO_BYTES_ARRAY;
        byte[][] values = NO_BYTES_ARRAY;
        int headerLength = varintLength(headers.size());
        if (!headers.isEmpty()) {
            names = new byte[headers.size()][];
            values = new byte[headers.size()][];
            int i = 0;
            for (Map.Entry<String, String> header : headers.entrySet()) {
                names[i] = header.getKey().getBytes(StandardCharsets.UTF_8);
                values[i] = header.getValue().getBytes(StandardCharsets.UTF_8);
                headerLength += varintLength(names[i].length) + names[i].length + varintLength(values[i].length)
                        + values[i].length;
                i++;
            }
        }
        int length = FIXED_LENGTH + (expiry > 0 ? 8 : 0) + (notBefore != 0 ? 8 : 0) + 2 + error.length + headerLength
                + payload.length;
        byte[] envelope = new byte[length];
        ByteBuffer out = ByteBuffer.wrap(envelope);
        out.put((byte) VERSION).put((byte) flags).putShort((short) attempts).putDouble(score);
        if (expiry > 0) {
            out.putDouble(expiry);
        }
        if (notBefore != 0) {
            out.putDouble(notBefore);
        }
        out.putShort((short) error.length).put(error);
        putVarint(out, names.length);
        for (int i = 0; i < names.length; i++) {
            putVarint(out, names[i].length);
            out.put(names[i]);
            putVarint(out, values[i].length);
            out.put(values[i]);
        }
        out.put(payload);
        return envelope;
    }

    /**
     * The attempt a delivered envelope stands for, read from its header alone. A first delivery comes as the message
     * was stored, its attempts 0, and is attempt 1; so is an envelope too short to have a header.
     */
    public static int deliveredAttempt(byte[] raw) {
        return raw.length < FIXED_LENGTH ? 1 : Math.max(1, ((raw[2] & 0xFF) << 8) | (raw[3] & 0xFF));
    }

    /** The attempt this envelope stands for when it was delivered, as {@link #deliveredAttempt(byte[])} reads it. */
    public int deliveredAttempt() {
        return Math.max(1, attempts);
    }

    /**
     * One header of a stored envelope, read without decoding the rest (its payload is not copied): for what a poll
     * reports of each message it took. Null when the envelope has no header of that name, or is not one this version
     * reads, which its decoding will report.
     */
    public static @Nullable String header(byte[] raw, String name) {
        if (raw == null || raw.length < FIXED_LENGTH + 2 || (raw[0] & 0xFF) != VERSION) {
            return null;
        }
        int flags = raw[1] & 0xFF;
        int at = FIXED_LENGTH + ((flags & FLAG_ORDERED) != 0 ? 8 : 0) + ((flags & FLAG_EXPIRES) != 0 ? 8 : 0)
                + ((flags & FLAG_NOT_BEFORE) != 0 ? 8 : 0) + ((flags & FLAG_RELEASED) != 0 ? 2 : 0);
        try {
            ByteBuffer in = ByteBuffer.wrap(raw);
            in.position(at + 2 + (in.getShort(at) & 0xFFFF));
            int count = readVarint(in);
            for (int i = 0; i < count; i++) {
                String headerName = readBytes(in, readVarint(in));
                int length = readVarint(in);
                if (headerName.equals(name)) {
                    return readBytes(in, length);
                }
                in.position(in.position() + length);
            }
            return null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Whether an envelope written by {@link #encodeNew} carries a not-before time. */
    public static boolean hasNotBefore(byte[] raw) {
        return raw.length > 1 && (raw[1] & FLAG_NOT_BEFORE) != 0;
    }

    /** How many bytes a stored message has around its payload at most, for the size limit. */
    public static int overhead(Map<String, String> headers) {
        int size = FIXED_LENGTH + 24 + 2 + 5;
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
        try {
            if ((flags & FLAG_ORDERED) != 0) {
                in.position(in.position() + 8);
            }
            long expireAt = (flags & FLAG_EXPIRES) != 0 ? (long) in.getDouble() : 0;
            long notBefore = (flags & FLAG_NOT_BEFORE) != 0 ? (long) in.getDouble() : 0;
            int releases = (flags & FLAG_RELEASED) != 0 ? in.getShort() & 0xFFFF : 0;
            int errorLength = in.getShort() & 0xFFFF;
            String error = readBytes(in, errorLength);
            String reason = "";
            int end = error.indexOf(REASON_END);
            if (end >= 0) {
                reason = error.substring(0, end);
                error = error.substring(end + 1);
            }
            int headerCount = readVarint(in);
            Map<String, String> headers = headerCount == 0 ? Collections.emptyMap() : new LinkedHashMap<>();
            for (int i = 0; i < headerCount; i++) {
                String name = readBytes(in, readVarint(in));
                headers.put(name, readBytes(in, readVarint(in)));
            }
            byte[] payload = Arrays.copyOfRange(raw, in.position(), raw.length);
            return new Envelope(attempts, score, expireAt, notBefore, releases, error, reason, headers, payload);
        } catch (RuntimeException e) {
            throw new MalformedEnvelopeException("envelope is truncated or corrupt: " + e, e);
        }
    }


    private static String readBytes(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new IllegalStateException("length " + length + " exceeds the " + in.remaining() + " bytes left");
        }
        String value = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
        in.position(in.position() + length);
        return value;
    }

    private static void putVarint(ByteBuffer out, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** How many bytes {@link #putVarint} writes for a length or count {@code value} (not negative). */
    private static int varintLength(int value) {
        int length = 1;
        for (int v = value >>> 7; v != 0; v >>>= 7) {
            length++;
        }
        return length;
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

    /** The UTF-8 bytes of {@code text}, cut at a character boundary to at most {@code max}. */
    private static byte[] utf8Prefix(String text, int max) {
        if (text == null || text.isEmpty()) {
            return NO_BYTES;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max) {
            return bytes;
        }
        int end = max;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return Arrays.copyOf(bytes, end);
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Envelope e && attempts == e.attempts && Double.compare(score, e.score) == 0
                && expireAt == e.expireAt && notBefore == e.notBefore && releases == e.releases
                && lastError.equals(e.lastError) && deadReason.equals(e.deadReason) && headers.equals(e.headers)
                && Arrays.equals(payload, e.payload);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(payload) + headers.hashCode() + attempts;
    }

    @Override
    public String toString() {
        return "Envelope[attempts=" + attempts + ", score=" + score + ", expireAt=" + expireAt + ", notBefore="
                + notBefore + ", releases=" + releases + ", lastError=" + lastError + ", deadReason=" + deadReason + ", headers=" + headers
                + ", payload=" + payload.length + " bytes]";
    }
}
