package dev.rmq.internal.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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

    /** Reads one row of a flat reply, whose first part is at {@code at}. */
    @FunctionalInterface
    interface RowReader<E> {
        E read(List<Object> parts, int at);
    }

    /**
     * The rows of a flat reply of {@code width} parts each, after the {@code from} parts of its head; an incomplete
     * last row is ignored.
     */
    static <E> List<E> rows(List<Object> parts, int from, int width, RowReader<E> row) {
        List<E> rows = new ArrayList<>(Math.max(0, (parts.size() - from) / width));
        for (int at = from; at + width <= parts.size(); at += width) {
            rows.add(row.read(parts, at));
        }
        return rows;
    }

    static byte[] bytes(Object part) {
        return part instanceof byte[] raw ? raw : text(part).getBytes(StandardCharsets.UTF_8);
    }
}
