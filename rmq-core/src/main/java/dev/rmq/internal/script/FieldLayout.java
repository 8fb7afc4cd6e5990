package dev.rmq.internal.script;

import java.util.ArrayList;
import java.util.List;

/**
 * The shape of a script's ARGV or of its reply, as both sides declare it: the Lua header (read by
 * {@link ScriptHeader}) and the Java side ({@link Argv} for the arguments, {@link Reply} for the reply). Fields
 * come in order; a {@link Kind#ROWS} field is passed as its row count followed by its rows, each the listed fields
 * (in ARGV only the last field may be one, see {@link #argv}); a {@link Kind#GROUP} argument is a fixed run of fields declared once (in lib.lua
 * and in one Java class) and shared by several scripts, passed in ARGV as one argument, its fields separated by
 * spaces.
 *
 * @param entries the fields in order
 */
public record FieldLayout(List<Entry> entries) {

    /** What a field is. */
    public enum Kind { SCALAR, ROWS, GROUP }

    /**
     * One field.
     *
     * @param name   its name, as the Lua code reads it ({@code ARG.name})
     * @param kind   a single value, a list of rows, or a group of fields
     * @param fields the fields of a row or a group; empty for a single value
     */
    public record Entry(String name, Kind kind, List<String> fields) {

        public Entry {
            fields = List.copyOf(fields);
        }
    }

    public FieldLayout {
        entries = List.copyOf(entries);
    }

    /**
     * An ARGV layout: a list of rows is its last field if it has one, since the loader reads a list's rows up to the
     * end of ARGV. A reply may hold several lists, each after its count.
     */
    public static FieldLayout argv(List<Entry> entries) {
        for (int i = 0; i < entries.size() - 1; i++) {
            if (entries.get(i).kind() == Kind.ROWS) {
                throw new IllegalArgumentException("a list of arguments must be the last one, as '"
                        + entries.get(i).name() + "' is not: " + entries);
            }
        }
        return new FieldLayout(entries);
    }

    /**
     * Every name in order, nested names spelled out: {@code slot}, {@code messages[]}, {@code messages[].key},
     * {@code policy{}}, {@code policy.type}. Two layouts with the same description encode alike.
     */
    public List<String> describe() {
        List<String> names = new ArrayList<>();
        for (Entry entry : entries) {
            switch (entry.kind()) {
                case SCALAR -> names.add(entry.name());
                case ROWS -> {
                    names.add(entry.name() + "[]");
                    entry.fields().forEach(f -> names.add(entry.name() + "[]." + f));
                }
                case GROUP -> {
                    names.add(entry.name() + "{}");
                    entry.fields().forEach(f -> names.add(entry.name() + "." + f));
                }
            }
        }
        return names;
    }
}
