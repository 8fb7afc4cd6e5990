package dev.rmq.codec;

import java.util.Arrays;

/** How a payload is compressed; the code is what the {@value PayloadForm#COMPRESSION_HEADER} header holds. */
public enum Compression {
    /** Raw DEFLATE (RFC 1951) from the JDK, at its fastest level: no dependency, and JSON shrinks 3 to 6 times. */
    DEFLATE("deflate");

    private final String code;

    Compression(String code) {
        this.code = code;
    }

    /** The name stored in the message's header. */
    public String code() {
        return code;
    }

    /** The compression a header names. */
    public static Compression of(String code) {
        for (Compression value : values()) {
            if (value.code.equals(code)) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown compression '" + code + "'; known: "
                + Arrays.stream(values()).map(Compression::code).toList());
    }
}
