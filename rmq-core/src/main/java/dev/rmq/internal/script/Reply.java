package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The Java side of a script's reply, read the way every script replies (see lib.lua): a flat array of the head's
 * fields in order, then, for a script that returns a list, the number of rows and the rows, each its fields in
 * order. Each field is named once, with how to read it; the reader of the result then asks for fields by name.
 * A reply whose shape or values do not fit, such as a row cut short, a word the script does not declare, or a
 * flag other than 0 and 1, fails loudly with what was expected, rather than being read wrongly.
 *
 * <pre>{@code
 * static final Reply<Polled> REPLY = Reply.of(Reply.fields().number("token").flag("paused"),
 *         "messages", Reply.fields().text("key").bytes("envelope"),
 *         row -> new Message(row.text("key"), row.bytes("envelope")),
 *         head -> new Polled(head.number("token"), head.flag("paused"), head.rows()));
 * }</pre>
 *
 * {@link #layout()} and {@link #words()} give what the test holds against the script's RETURNS block.
 *
 * @param <R> what the reply becomes
 */
public final class Reply<R> {

    /** How a field's value is read. */
    private enum Kind {
        /** An integer. */
        NUMBER,
        /** A number Lua wrote as text, since Redis would cut a Lua number to an integer. */
        DECIMAL,
        TEXT,
        BYTES,
        /** 1 or 0. */
        FLAG,
        /** One of a fixed set of words, each meaning one Java value. */
        WORD
    }

    private record Field(String name, Kind kind, Map<String, ?> words) {
    }

    /** The fields of a head or of a row, in order, as a reply declares them. */
    public static final class Fieldset {

        private final List<Field> fields = new ArrayList<>();

        private Fieldset() {
        }

        public Fieldset number(String name) {
            return add(name, Kind.NUMBER, Map.of());
        }

        public Fieldset decimal(String name) {
            return add(name, Kind.DECIMAL, Map.of());
        }

        public Fieldset text(String name) {
            return add(name, Kind.TEXT, Map.of());
        }

        public Fieldset bytes(String name) {
            return add(name, Kind.BYTES, Map.of());
        }

        public Fieldset flag(String name) {
            return add(name, Kind.FLAG, Map.of());
        }

        /** A field that holds one of {@code words}, each read as the value it maps to. */
        public Fieldset word(String name, Map<String, ?> words) {
            return add(name, Kind.WORD, Map.copyOf(words));
        }

        private Fieldset add(String name, Kind kind, Map<String, ?> words) {
            if (fields.stream().anyMatch(f -> f.name().equals(name))) {
                throw new IllegalArgumentException("reply field '" + name + "' is declared twice");
            }
            fields.add(new Field(name, kind, words));
            return this;
        }
    }

    private final List<Field> head;
    /** The list's name, null for a reply without one. */
    private final @Nullable String list;
    private final List<Field> row;
    private final Map<String, Integer> headIndex;
    private final Map<String, Integer> rowIndex;
    /** Reads one row of the list; null for a reply without one. */
    private final @Nullable Function<Fields, ?> rowReader;
    private final Function<Fields, R> reader;

    private Reply(Fieldset head, @Nullable String list, @Nullable Fieldset row, @Nullable Function<Fields, ?> rowReader,
                  Function<Fields, R> reader) {
        this.head = List.copyOf(head.fields);
        this.list = list;
        this.row = row == null ? List.of() : List.copyOf(row.fields);
        if (list != null && this.row.isEmpty()) {
            throw new IllegalArgumentException("the rows of list '" + list + "' need at least one field");
        }
        this.headIndex = index(this.head);
        this.rowIndex = index(this.row);
        this.rowReader = rowReader;
        this.reader = reader;
    }

    /** A new set of fields, for {@link #of}. */
    public static Fieldset fields() {
        return new Fieldset();
    }

    /** A reply of fields only. */
    public static <R> Reply<R> of(Fieldset head, Function<Fields, R> reader) {
        return new Reply<>(head, null, null, null, reader);
    }

    /**
     * A reply of {@code head}'s fields, then a list named {@code list} whose rows are {@code row}'s fields, each read by
     * {@code rowReader}; {@code reader} reads the whole, the rows being {@link Fields#rows()}.
     */
    public static <E, R> Reply<R> of(Fieldset head, String list, Fieldset row, Function<Fields, E> rowReader,
                                     Function<Fields, R> reader) {
        return new Reply<>(head, list, row, rowReader, reader);
    }

    /** The words of an enum, each as {@code name} spells it. */
    public static <E extends Enum<E>> Map<String, E> words(E[] values, Function<E, String> name) {
        Map<String, E> words = new LinkedHashMap<>();
        for (E value : values) {
            words.put(name.apply(value), value);
        }
        return words;
    }

    /**
     * Reads the reply {@code script} gave.
     *
     * @throws IllegalStateException when the reply does not have the shape or the values this reader declares
     */
    public R decode(Script script, Object reply) {
        if (!(reply instanceof List<?> parts)) {
            throw misfit(script, "a reply that is not a list: " + describe(reply));
        }
        int fixed = head.size() + (list == null ? 0 : 1);
        if (parts.size() < fixed) {
            throw misfit(script, parts.size() + " part(s), fewer than the " + fixed + " it starts with");
        }
        List<Object> rows = List.of();
        if (list != null) {
            long count = this.<Long>convert(script, parts.get(head.size()),
                    new Field(list + "[] count", Kind.NUMBER, Map.of()));
            long expected = fixed + count * row.size();
            if (count < 0 || parts.size() != expected) {
                throw misfit(script, parts.size() + " part(s) for " + count + " row(s) of " + row.size()
                        + " field(s) after " + fixed + ", which make " + expected);
            }
            rows = new ArrayList<>((int) count);
            Function<Fields, ?> readRow = Objects.requireNonNull(rowReader, "a reply with a list has a row reader");
            for (int at = fixed; at < parts.size(); at += row.size()) {
                rows.add(readRow.apply(new Fields(this, script, parts, at, rowIndex, row)));
            }
        } else if (parts.size() != fixed) {
            throw misfit(script, parts.size() + " part(s) where it declares " + fixed);
        }
        Fields fields = new Fields(this, script, parts, 0, headIndex, head);
        fields.rows = rows;
        return reader.apply(fields);
    }

    /** The reply's fields as the RETURNS block of a header lists them. */
    public FieldLayout layout() {
        List<FieldLayout.Entry> entries = new ArrayList<>();
        head.forEach(f -> entries.add(new FieldLayout.Entry(f.name(), FieldLayout.Kind.SCALAR, List.of())));
        if (list != null) {
            entries.add(new FieldLayout.Entry(list, FieldLayout.Kind.ROWS, row.stream().map(Field::name).toList()));
        }
        return new FieldLayout(entries);
    }

    /** The word fields, named as {@link ScriptHeader#words()} names them, each with its words. */
    public Map<String, List<String>> words() {
        Map<String, List<String>> words = new LinkedHashMap<>();
        head.stream().filter(f -> f.kind() == Kind.WORD)
                .forEach(f -> words.put(f.name(), List.copyOf(f.words().keySet())));
        row.stream().filter(f -> f.kind() == Kind.WORD)
                .forEach(f -> words.put(list + "[]." + f.name(), List.copyOf(f.words().keySet())));
        return words;
    }

    /** Reads one part as its field declares it, or fails naming the script, the part and the field. */
    private <V> V convert(Script script, Object part, Field field) {
        Kind kind = field.kind();
        Object value;
        try {
            value = switch (kind) {
                case NUMBER -> part instanceof Number n ? n.longValue() : Long.parseLong(text(part));
                case DECIMAL -> part instanceof Number n ? n.doubleValue() : Double.parseDouble(text(part));
                case TEXT -> text(part);
                case BYTES -> part instanceof byte[] raw ? raw : text(part).getBytes(StandardCharsets.UTF_8);
                case FLAG -> flag(part);
                case WORD -> field.words().get(text(part));
            };
        } catch (NumberFormatException e) {
            value = null;
        }
        if (value == null) {
            throw misfit(script, describe(part) + " as its " + kind + " field '" + field.name() + "'"
                    + (kind == Kind.WORD ? ", which holds one of " + field.words().keySet() : ""));
        }
        @SuppressWarnings("unchecked")
        V typed = (V) value;
        return typed;
    }

    /** 1 as true, 0 as false, and null for any other number. */
    private static @Nullable Boolean flag(Object part) {
        long value = part instanceof Number n ? n.longValue() : Long.parseLong(text(part));
        return value == 1 ? Boolean.TRUE : value == 0 ? Boolean.FALSE : null;
    }

    private static String text(Object part) {
        return part instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(part);
    }

    private IllegalStateException misfit(Script script, String what) {
        return new IllegalStateException(script.file() + " replied " + what + "; its RETURNS block declares "
                + layout().describe() + ": the script and its Java reader disagree");
    }

    private static Map<String, Integer> index(List<Field> fields) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < fields.size(); i++) {
            index.put(fields.get(i).name(), i);
        }
        return index;
    }

    private static String describe(Object part) {
        return part instanceof byte[] bytes ? "'" + new String(bytes, StandardCharsets.UTF_8) + "'" : String.valueOf(part);
    }

    /** The fields of a reply's head, or of one of its rows, read by name. */
    public static final class Fields {

        private final Reply<?> reply;
        private final Script script;
        private final List<?> parts;
        private final int at;
        private final Map<String, Integer> index;
        private final List<Field> fields;
        private List<Object> rows = List.of();

        private Fields(Reply<?> reply, Script script, List<?> parts, int at, Map<String, Integer> index,
                       List<Field> fields) {
            this.reply = reply;
            this.script = script;
            this.parts = parts;
            this.at = at;
            this.index = index;
            this.fields = fields;
        }

        public long number(String name) {
            return (Long) read(name, Kind.NUMBER);
        }

        public double decimal(String name) {
            return (Double) read(name, Kind.DECIMAL);
        }

        public String text(String name) {
            return (String) read(name, Kind.TEXT);
        }

        public byte[] bytes(String name) {
            return (byte[]) read(name, Kind.BYTES);
        }

        public boolean flag(String name) {
            return (Boolean) read(name, Kind.FLAG);
        }

        @SuppressWarnings("unchecked")
        public <E> E word(String name) {
            return (E) read(name, Kind.WORD);
        }

        /** The list's rows, each as the row reader made it. */
        @SuppressWarnings("unchecked")
        public <E> List<E> rows() {
            return (List<E>) rows;
        }

        private Object read(String name, Kind kind) {
            Integer position = index.get(name);
            if (position == null || fields.get(position).kind() != kind) {
                throw new IllegalArgumentException("the reply of " + script.file() + " declares no " + kind + " field '"
                        + name + "'; it declares " + reply.layout().describe());
            }
            return reply.convert(script, parts.get(at + position), fields.get(position));
        }
    }
}
