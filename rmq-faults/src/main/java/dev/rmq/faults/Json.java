package dev.rmq.faults;

import java.util.Collection;
import java.util.Map;

/** Just enough JSON output for the result: maps (in their order), collections, numbers, booleans, strings. */
final class Json {

    private Json() {
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.append('\n').toString();
    }

    private static void write(StringBuilder out, Object value, int indent) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                pad(out, indent + 2);
                string(out, String.valueOf(entry.getKey()));
                out.append(": ");
                write(out, entry.getValue(), indent + 2);
                out.append(++i < map.size() ? ",\n" : "\n");
            }
            pad(out, indent);
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            if (list.isEmpty()) {
                out.append("[]");
                return;
            }
            boolean simple = list.stream().noneMatch(v -> v instanceof Map || v instanceof Collection);
            out.append(simple ? "[" : "[\n");
            int i = 0;
            for (Object item : list) {
                if (!simple) {
                    pad(out, indent + 2);
                }
                write(out, item, indent + 2);
                if (++i < list.size()) {
                    out.append(simple ? ", " : ",\n");
                } else if (!simple) {
                    out.append('\n');
                }
            }
            if (!simple) {
                pad(out, indent);
            }
            out.append(']');
        } else if (value instanceof Double d) {
            out.append(d.isNaN() || d.isInfinite() ? "null" : String.format(java.util.Locale.ROOT, "%.3f", d));
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            string(out, value.toString());
        }
    }

    private static void pad(StringBuilder out, int indent) {
        out.append(" ".repeat(indent));
    }

    private static void string(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
