package dev.rmq.internal.script;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Reading the parts of a script's reply, as Redisson hands them over with the byte-array codec. */
final class Replies {

    private Replies() {
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object reply) {
        return (List<Object>) reply;
    }

    static String text(Object part) {
        return part instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(part);
    }

    static long number(Object part) {
        return part instanceof Number n ? n.longValue() : Long.parseLong(text(part));
    }

    static byte[] bytes(Object part) {
        return part instanceof byte[] raw ? raw : text(part).getBytes(StandardCharsets.UTF_8);
    }
}
