package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The Java side of a script's reply, read the way every script replies (see lib.lua): a flat array of the head's
 * fields in order, then, for each list the script returns, the number of rows and the rows, each its fields in
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
 * A second list follows the first with {@link #thenList}, its rows read by {@link Fields#rows(String)}.
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

    /** A list of rows: its name, its fields, and how one row is read. */
    private record ListSpec(String name, List<Field> row, Map<String, Integer> index, Function<Fields, ?> rowReader) {
    }

    private final List<Field> head;
    private final Map<String, Integer> headIndex;
    /** The lists, in the order the reply gives them after the head. */
    private final List<ListSpec> lists;
    private final Function<Fields, R> reader;

    private Reply(List<Field> head, List<ListSpec> lists, Function<Fields, R> reader) {
        this.head = List.copyOf(head);
        this.headIndex = index(this.head);
        this.lists = List.copyOf(lists);
        this.reader = reader;
    }

    private static ListSpec list(String name, Fieldset row, Function<Fields, ?> rowReader) {
        if (row.fields.isEmpty()) {
            throw new IllegalArgumentException("the rows of list '" + name + "' need at least one field");
        }
        List<Field> fields = List.copyOf(row.fields);
        return new ListSpec(name, fields, index(fields), rowReader);
    }

    /** A new set of fields, for {@link #of}. */
    public static Fieldset fields() {
        return new Fieldset();
    }

    /** A reply of fields only. */
    public static <R> Reply<R> of(Fieldset head, Function<Fields, R> reader) {
        return new Reply<>(head.fields, List.of(), reader);
    }

    /**
     * A reply of {@code head}'s fields, then a list named {@code list} whose rows are {@code row}'s fields, each read by
     * {@code rowReader}; {@code reader} reads the whole, the rows being {@link Fields#rows()}. A row reader reads
     * the fields it needs at once and keeps no hold of the {@link Fields}: one view moves from row to row.
     */
    public static <E, R> Reply<R> of(Fieldset head, String list, Fieldset row, Function<Fields, E> rowReader,
                                     Function<Fields, R> reader) {
        return new Reply<>(head.fields, List.of(list(list, row, rowReader)), reader);
    }

    /**
     * This reply with one more list after those it has, named {@code list}, its rows {@code row}'s fields, each read
     * by {@code rowReader} as {@link #of(Fieldset, String, Fieldset, Function, Function)} reads them: the reader finds
     * them as {@link Fields#rows(String)}.
     */
    public <E> Reply<R> thenList(String list, Fieldset row, Function<Fields, E> rowReader) {
        if (lists.isEmpty()) {
            throw new IllegalStateException("a second list goes after a first: declare the first with of(head, list,"
                    + " ...)");
        }
        if (lists.stream().anyMatch(l -> l.name().equals(list)) || headIndex.containsKey(list)) {
            throw new IllegalArgumentException("reply field '" + list + "' is declared twice");
        }
        List<ListSpec> more = new ArrayList<>(lists);
        more.add(list(list, row, rowReader));
        return new Reply<>(head, more, reader);
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
        int at = head.size();
        if (parts.size() < at + lists.size()) {
            throw misfit(script, parts.size() + " part(s), fewer than the " + (at + lists.size()) + " it starts with");
        }
        Map<String, List<Object>> rows = new HashMap<>();
        for (int l = 0; l < lists.size(); l++) {
            ListSpec list = lists.get(l);
            if (at >= parts.size()) {
                throw misfit(script, parts.size() + " part(s), which end before the count of list '" + list.name()
                        + "'");
            }
            long count = this.<Long>convert(script, parts.get(at), new Field(list.name() + "[] count", Kind.NUMBER,
                    Map.of()));
            long end = at + 1 + count * list.row().size();
            // the last list ends the reply; one before it leaves room at least for the counts after it
            long least = end + lists.size() - 1 - l;
            boolean last = l == lists.size() - 1;
            if (count < 0 || (last ? parts.size() != end : parts.size() < least)) {
                throw misfit(script, parts.size() + " part(s), where " + count + " row(s) of list '" + list.name()
                        + "', of " + list.row().size() + " field(s) each, after " + (at + 1) + " part(s) make "
                        + (last ? end : "at least " + least));
            }
            List<Object> read = new ArrayList<>((int) count);
            // one view for all the rows, moved from row to row: a row reader reads its fields at once, into what it
            // makes, and keeps no hold of the view
            Fields row = new Fields(this, script, parts, at + 1, list.index(), list.row());
            for (int from = at + 1; from < end; from += list.row().size()) {
                row.at = from;
                read.add(list.rowReader().apply(row));
            }
            rows.put(list.name(), read);
            at = (int) end;
        }
        if (lists.isEmpty() && parts.size() != at) {
            throw misfit(script, parts.size() + " part(s) where it declares " + at);
        }
        Fields fields = new Fields(this, script, parts, 0, headIndex, head);
        fields.rows = rows;
        return reader.apply(fields);
    }

    /** The reply's fields as the RETURNS block of a header lists them. */
    public FieldLayout layout() {
        List<FieldLayout.Entry> entries = new ArrayList<>();
        head.forEach(f -> entries.add(new FieldLayout.Entry(f.name(), FieldLayout.Kind.SCALAR, List.of())));
        lists.forEach(l -> entries.add(new FieldLayout.Entry(l.name(), FieldLayout.Kind.ROWS,
                l.row().stream().map(Field::name).toList())));
        return new FieldLayout(entries);
    }

    /** The word fields, named as {@link ScriptHeader#words()} names them, each with its words. */
    public Map<String, List<String>> words() {
        Map<String, List<String>> words = new LinkedHashMap<>();
        head.stream().filter(f -> f.kind() == Kind.WORD)
                .forEach(f -> words.put(f.name(), List.copyOf(f.words().keySet())));
        lists.forEach(l -> l.row().stream().filter(f -> f.kind() == Kind.WORD)
                .forEach(f -> words.put(l.name() + "[]." + f.name(), List.copyOf(f.words().keySet()))));
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
        private int at;
        private final Map<String, Integer> index;
        private final List<Field> fields;
        private Map<String, List<Object>> rows = Map.of();

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

        /** The first list's rows, each as its row reader made it. */
        public <E> List<E> rows() {
            if (reply.lists.isEmpty()) {
                throw new IllegalArgumentException("the reply of " + script.file() + " declares no list; it declares "
                        + reply.layout().describe());
            }
            return rows(reply.lists.get(0).name());
        }

        /** The rows of the list named {@code list}, each as its row reader made it. */
        @SuppressWarnings("unchecked")
        public <E> List<E> rows(String list) {
            List<Object> found = rows.get(list);
            if (found == null) {
                throw new IllegalArgumentException("the reply of " + script.file() + " declares no list '" + list
                        + "'; it declares " + reply.layout().describe());
            }
            return (List<E>) found;
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
