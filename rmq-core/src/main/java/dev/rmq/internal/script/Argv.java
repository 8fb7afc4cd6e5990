package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The Java side of a script's ARGV: each argument named once, with how to read it from the call. It encodes
 * a call into the arguments Redis passes to the script, in the order and shape of the script's header
 * (see lib.lua), and gives its {@link #layout()} for the test that holds the two sides together.
 *
 * <pre>{@code
 * static final Argv<SendCall> ARGV = Argv.<SendCall>builder()
 *         .arg("type", c -> c.type().scriptCode())
 *         .rows("messages", SendCall::messages, Argv.<Message>builder()
 *                 .arg("key", Message::key)
 *                 .arg("envelope", Message::envelope)
 *                 .build())
 *         .build();
 * }</pre>
 *
 * Values are {@code byte[]} (passed as they are), {@code String} (UTF-8), numbers or characters (as text).
 *
 * @param <C> the call
 */
public final class Argv<C> {

    /** What separates the fields of a group within its one argument; no field may hold it. */
    static final byte GROUP_SEPARATOR = ' ';

    private static final byte[] NO_BYTES = new byte[0];
    /** Each ASCII character as an argument of its own. */
    private static final byte[][] ASCII = new byte[128][];

    static {
        for (int c = 0; c < ASCII.length; c++) {
            ASCII[c] = new byte[] {(byte) c};
        }
    }

    private final List<Part<C>> parts;
    private final FieldLayout layout;

    private sealed interface Part<C> {
        int width(C call);

        void write(C call, Writer out);
    }

    private record Single<C>(Function<? super C, ?> value) implements Part<C> {
        public int width(C call) {
            return 1;
        }

        public void write(C call, Writer out) {
            out.add(value.apply(call));
        }
    }

    /**
     * A group travels as one argument, its fields joined by {@link #GROUP_SEPARATOR}: each argument costs a script
     * call a Lua string and a table slot before its first line runs, and the scripts read a group's fields only
     * on the paths that need them (see policy_from in lib.lua).
     */
    private record Group<C, G>(String name, Function<? super C, G> value, Argv<G> group) implements Part<C> {
        public int width(C call) {
            return 1;
        }

        public void write(C call, Writer out) {
            byte[][] fields = group.encode(value.apply(call));
            int size = fields.length - 1;
            for (int i = 0; i < fields.length; i++) {
                String field = name + "." + group.layout.entries().get(i).name();
                if (fields[i].length == 0) {
                    // the scripts split a group on runs of spaces, so an empty field would shift the ones after it
                    throw new IllegalArgumentException("the field " + field + " is empty; a group's fields hold text");
                }
                for (byte b : fields[i]) {
                    if (b == GROUP_SEPARATOR) {
                        throw new IllegalArgumentException("the field " + field + " holds a space, which separates a"
                                + " group's fields: '" + new String(fields[i], StandardCharsets.UTF_8) + "'");
                    }
                }
                size += fields[i].length;
            }
            byte[] joined = new byte[size];
            int at = 0;
            for (int i = 0; i < fields.length; i++) {
                if (i > 0) {
                    joined[at++] = GROUP_SEPARATOR;
                }
                System.arraycopy(fields[i], 0, joined, at, fields[i].length);
                at += fields[i].length;
            }
            out.add(joined);
        }
    }

    private record Rows<C, R>(Function<? super C, ? extends List<R>> rows, Argv<R> row) implements Part<C> {
        public int width(C call) {
            return 1 + rows.apply(call).size() * row.parts.size();
        }

        public void write(C call, Writer out) {
            List<R> values = rows.apply(call);
            out.add(values.size());
            for (R value : values) {
                for (Part<R> part : row.parts) {
                    part.write(value, out);
                }
            }
        }
    }

    private static final class Writer {
        final byte[][] args;
        int next;
        /**
         * The last whole number written and its digits, which the next equal one shares: the rows of an ack call
         * quote one poll's token each, and a batch of sends often one due time.
         */
        long lastNumber;
        byte @Nullable [] lastDigits;

        Writer(int size) {
            this.args = new byte[size][];
        }

        void add(Object value) {
            if (value instanceof Long number) {
                if (lastDigits == null || number != lastNumber) {
                    lastNumber = number;
                    lastDigits = digits(number);
                }
                args[next++] = lastDigits;
                return;
            }
            args[next++] = bytes(value);
        }
    }

    private Argv(List<Part<C>> parts, FieldLayout layout) {
        this.parts = List.copyOf(parts);
        this.layout = layout;
    }

    public static <C> Builder<C> builder() {
        return new Builder<>();
    }

    /** The arguments for {@code call}, in the script's order. */
    public byte[][] encode(C call) {
        int size = 0;
        for (Part<C> part : parts) {
            size += part.width(call);
        }
        Writer out = new Writer(size);
        for (Part<C> part : parts) {
            part.write(call, out);
        }
        return out.args;
    }

    /** The names in order, to compare with the script's header. */
    public FieldLayout layout() {
        return layout;
    }

    /**
     * The bytes of one argument. A whole number's digits are written straight into its array, and an empty text or
     * an ASCII character is a shared array: a send or an ack passes several such arguments a message, and the text
     * made first and copied out cost two arrays more each. No argument's array is written to once made.
     */
    static byte[] bytes(Object value) {
        if (value instanceof byte[] raw) {
            return raw;
        }
        if (value instanceof String text) {
            return text.isEmpty() ? NO_BYTES : text.getBytes(StandardCharsets.UTF_8);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return digits(((Number) value).longValue());
        }
        if (value instanceof Character c && c < ASCII.length) {
            return ASCII[c];
        }
        if (value instanceof Number || value instanceof Character) {
            return value.toString().getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("script arguments are byte[], String, numbers or characters, not " + value);
    }

    /** {@code value} in decimal, as {@link Long#toString(long)} writes it. */
    static byte[] digits(long value) {
        if (value == Long.MIN_VALUE) {
            return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
        }
        long rest = Math.abs(value);
        int length = value < 0 ? 2 : 1;
        for (long v = rest / 10; v != 0; v /= 10) {
            length++;
        }
        byte[] digits = new byte[length];
        for (int at = length - 1; at >= (value < 0 ? 1 : 0); at--) {
            digits[at] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        if (value < 0) {
            digits[0] = '-';
        }
        return digits;
    }

    /** Names the arguments in the order the script's header lists them. */
    public static final class Builder<C> {
        private final List<Part<C>> parts = new ArrayList<>();
        private final List<FieldLayout.Entry> entries = new ArrayList<>();

        private Builder() {
        }

        /** One argument. */
        public Builder<C> arg(String name, Function<? super C, ?> value) {
            parts.add(new Single<>(value));
            entries.add(new FieldLayout.Entry(name, FieldLayout.Kind.SCALAR, List.of()));
            return this;
        }

        /**
         * A group of fields declared once ({@code name{}} in the header, its fields in lib.lua), passed as one
         * argument: the fields in order, separated by spaces.
         */
        public <G> Builder<C> group(String name, Function<? super C, G> value, Argv<G> group) {
            requireFlat(name, group);
            parts.add(new Group<>(name, value, group));
            entries.add(new FieldLayout.Entry(name, FieldLayout.Kind.GROUP, names(group)));
            return this;
        }

        /** A list ({@code name[]} in the header): its length, then each row's fields. */
        public <R> Builder<C> rows(String name, Function<? super C, ? extends List<R>> rows, Argv<R> row) {
            requireFlat(name, row);
            parts.add(new Rows<>(rows, row));
            entries.add(new FieldLayout.Entry(name, FieldLayout.Kind.ROWS, names(row)));
            return this;
        }

        public Argv<C> build() {
            return new Argv<>(parts, FieldLayout.argv(entries));
        }

        private static void requireFlat(String name, Argv<?> nested) {
            if (nested.layout.entries().stream().anyMatch(e -> e.kind() != FieldLayout.Kind.SCALAR)) {
                throw new IllegalArgumentException("the fields of '" + name + "' must be single arguments");
            }
        }

        private static List<String> names(Argv<?> nested) {
            return nested.layout.entries().stream().map(FieldLayout.Entry::name).toList();
        }
    }
}
