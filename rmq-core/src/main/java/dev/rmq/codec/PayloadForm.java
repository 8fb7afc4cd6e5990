package dev.rmq.codec;

import java.util.Map;

/**
 * How a topic's payloads travel: the version of their shape, and whether they are compressed and encrypted. A topic
 * that sets none of these stores its payloads as the codec writes them, with no header added.
 * <p>
 * Every send writes what it did in the message's headers ({@value #VERSION_HEADER}, {@value #COMPRESSION_HEADER},
 * {@value #KEY_HEADER}), and every read follows those headers rather than the topic's form. So a slot may hold old
 * and new messages side by side: plain ones sent before compression was turned on, ones encrypted with a key since
 * rotated, ones sent at an older version. A message without a version header is version 0, the version of every
 * topic that declares none.
 *
 * @param version           the current version of the topic's payload shape, 0 or more; sends write it when above 0,
 *                          and reads bring older payloads up to it through the client's upcasters
 * @param compression       how payloads of at least {@code compressAbove} bytes are compressed
 * @param compressAbove     the smallest payload, in bytes as the codec wrote it, that is compressed; 0 for never
 * @param encrypted         whether payloads are encrypted (AES-GCM) with the client's key ring's current key
 */
public record PayloadForm(int version, Compression compression, int compressAbove, boolean encrypted) {

    /** The header that holds the version a payload was sent at; absent for version 0. */
    public static final String VERSION_HEADER = "rmq-version";
    /** The header that names how a payload was compressed; absent when it was not. */
    public static final String COMPRESSION_HEADER = "rmq-compression";
    /** The header that holds the id of the key that encrypted a payload; absent when it was not encrypted. */
    public static final String KEY_HEADER = "rmq-key-id";
    /** The highest version a topic can declare. */
    public static final int MAX_VERSION = 1_000_000;
    /** Compressing less than this gains nothing that pays for the compression header. */
    public static final int MIN_COMPRESS_ABOVE = 64;

    /** Payloads as the codec writes them: version 0, neither compressed nor encrypted. */
    public static final PayloadForm PLAIN = new PayloadForm(0, Compression.DEFLATE, 0, false);

    public PayloadForm {
        if (version < 0 || version > MAX_VERSION) {
            throw new IllegalArgumentException("a payload version must be in 0.." + MAX_VERSION + ", was " + version);
        }
        if (compression == null) {
            throw new IllegalArgumentException("a payload compression must not be null; DEFLATE is the default");
        }
        if (compressAbove != 0 && compressAbove < MIN_COMPRESS_ABOVE) {
            throw new IllegalArgumentException("compressAbove must be 0 (never) or at least " + MIN_COMPRESS_ABOVE
                    + " bytes, was " + compressAbove);
        }
    }

    /** This form at {@code value}, the current version of the payload's shape. */
    public PayloadForm withVersion(int value) {
        return new PayloadForm(value, compression, compressAbove, encrypted);
    }

    /** This form compressing payloads of at least {@code bytes} with {@code how}; 0 bytes for never. */
    public PayloadForm withCompression(Compression how, int bytes) {
        return new PayloadForm(version, how, bytes, encrypted);
    }

    /** This form encrypting payloads, or not. */
    public PayloadForm withEncryption(boolean value) {
        return new PayloadForm(version, compression, compressAbove, value);
    }

    /** Whether a message with these headers has an encrypted payload. */
    public static boolean isEncrypted(Map<String, String> headers) {
        return headers.containsKey(KEY_HEADER);
    }

    /** Whether sends of this form compress any payload. */
    public boolean compresses() {
        return compressAbove > 0;
    }

    /** Whether this form changes nothing of what the codec writes. */
    public boolean isPlain() {
        return version == 0 && !compresses() && !encrypted;
    }

    /** The form in a few words, for logs: {@code plain}, or e.g. {@code v3, deflate >= 1024 B, encrypted}. */
    @Override
    public String toString() {
        if (isPlain()) {
            return "plain";
        }
        StringBuilder text = new StringBuilder("v").append(version);
        if (compresses()) {
            text.append(", ").append(compression.code()).append(" >= ").append(compressAbove).append(" B");
        }
        if (encrypted) {
            text.append(", encrypted");
        }
        return text.toString();
    }
}
