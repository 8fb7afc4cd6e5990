package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Lua file's header comment declares, read the way lib.lua describes: the contract of a script (its
 * {@code ARGV}, {@code RETURNS} and {@code ERRORS} blocks), and in lib.lua the {@code KEYS} block, the
 * {@code ARGV GROUP} blocks and the errors any script may raise.
 *
 * <pre>
 * -- ARGV
 * --   type            'R', 'P' or 'F'            one field (three spaces in)
 * --   policy{}        the retry policy            a group declared in lib.lua
 * --   messages[]      the messages, each:        a list: its length, then its rows
 * --     key           the merge key              a field of a row (five spaces in)
 * --                   more description           anything indented further, or ending the block
 * -- RETURNS
 * --   results[]       one per message, each:     the same form as ARGV, groups aside
 * --     outcome       one of: added merged       a word field: the words it may hold, on its own line
 * -- ERRORS
 * --   RMQ_FENCED      when ...                   the codes of the errors it raises
 * </pre>
 *
 * @param file    the file the header was read from
 * @param argv    the ARGV block, empty when the file has none
 * @param returns the RETURNS block, empty when the file has none
 * @param words   the word fields of the RETURNS block by name ({@code outcome}, or {@code results[].outcome} in a
 *                row), each with the words it may hold
 * @param errors  the codes of the ERRORS block
 * @param keys    the KEYS block's names in order (lib.lua)
 * @param groups  the ARGV GROUP blocks by name, each its field names in order (lib.lua)
 */
public record ScriptHeader(String file, FieldLayout argv, FieldLayout returns, Map<String, List<String>> words,
                           List<String> errors, List<String> keys, Map<String, List<String>> groups) {

    private static final Pattern ARGUMENT = Pattern.compile("^--   ([a-z_][a-z0-9_]*)(\\[]|\\{})?(?:\\s.*)?$");
    private static final Pattern ROW_FIELD = Pattern.compile("^--     ([a-z_][a-z0-9_]*)(?:\\s.*)?$");
    private static final Pattern GROUP_START = Pattern.compile("^-- ARGV GROUP ([a-z_][a-z0-9_]*):.*$");
    private static final Pattern ERROR_CODE = Pattern.compile("^--   (RMQ_[A-Z_]+)(?:\\s.*)?$");
    private static final Pattern WORDS = Pattern.compile("\\sone of: ([a-z_ -]+)$");

    /**
     * Reads the header of {@code source}; {@code groups} are lib.lua's, for the {@code name{}} arguments.
     *
     * @throws IllegalStateException when the header does not follow the format, naming the file and line
     */
    public static ScriptHeader parse(String file, String source, Map<String, List<String>> groups) {
        String[] lines = source.split("\n", -1);
        List<FieldLayout.Entry> argv = new ArrayList<>();
        List<FieldLayout.Entry> returns = new ArrayList<>();
        Map<String, List<String>> words = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        Map<String, List<String>> declared = new LinkedHashMap<>();
        int i = 0;
        while (i < lines.length && lines[i].startsWith("--")) {
            String line = lines[i];
            Matcher group = GROUP_START.matcher(line);
            if (line.equals("-- ARGV")) {
                i = readFields(file, lines, i + 1, groups, argv, null);
            } else if (line.equals("-- RETURNS")) {
                i = readFields(file, lines, i + 1, Map.of(), returns, words);
            } else if (line.equals("-- ERRORS")) {
                i = readErrors(file, lines, i + 1, errors);
            } else if (line.startsWith("-- RETURNS") || line.startsWith("-- ERRORS")) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": '" + line.substring(3).split(" ")[0]
                        + "' must stand alone on its line, its fields listed under it as ARGV's are");
            } else if (line.equals("-- KEYS")) {
                i = readNames(lines, i + 1, keys);
            } else if (group.matches()) {
                List<String> fields = new ArrayList<>();
                i = readNames(lines, i + 1, fields);
                declared.put(group.group(1), List.copyOf(fields));
            } else {
                i++;
            }
        }
        return new ScriptHeader(file, FieldLayout.argv(argv), new FieldLayout(returns), Map.copyOf(words),
                List.copyOf(errors), List.copyOf(keys), declared);
    }

    /** Reads a block of fields (ARGV or RETURNS); {@code words}, when not null, collects the word fields. */
    private static int readFields(String file, String[] lines, int from, Map<String, List<String>> groups,
                                  List<FieldLayout.Entry> out, @Nullable Map<String, List<String>> words) {
        int i = from;
        // the list argument being read, if any, and its row fields so far
        String rowsName = null;
        List<String> rowFields = new ArrayList<>();
        while (i < lines.length && lines[i].startsWith("--   ")) {
            Matcher argument = ARGUMENT.matcher(lines[i]);
            Matcher field = ROW_FIELD.matcher(lines[i]);
            if (argument.matches()) {
                if (rowsName != null) {
                    out.add(new FieldLayout.Entry(rowsName, FieldLayout.Kind.ROWS, rowFields));
                    rowsName = null;
                }
                String name = argument.group(1);
                String suffix = argument.group(2);
                if ("[]".equals(suffix)) {
                    rowsName = name;
                    rowFields = new ArrayList<>();
                } else if ("{}".equals(suffix)) {
                    List<String> fields = groups.get(name);
                    if (fields == null) {
                        throw new IllegalStateException(file + ":" + (i + 1) + ": ARGV group '" + name
                                + "' is not declared in lib.lua; declared: " + groups.keySet());
                    }
                    out.add(new FieldLayout.Entry(name, FieldLayout.Kind.GROUP, fields));
                } else {
                    out.add(new FieldLayout.Entry(name, FieldLayout.Kind.SCALAR, List.of()));
                    collectWords(words, name, lines[i]);
                }
            } else if (field.matches()) {
                if (rowsName == null) {
                    throw new IllegalStateException(file + ":" + (i + 1) + ": row field '" + field.group(1)
                            + "' is not under a list argument (name[])");
                }
                rowFields.add(field.group(1));
                collectWords(words, rowsName + "[]." + field.group(1), lines[i]);
            }
            i++;
        }
        if (rowsName != null) {
            out.add(new FieldLayout.Entry(rowsName, FieldLayout.Kind.ROWS, rowFields));
        }
        return i;
    }

    private static void collectWords(@Nullable Map<String, List<String>> words, String name, String line) {
        Matcher oneOf = WORDS.matcher(line);
        if (words != null && oneOf.find()) {
            words.put(name, List.of(oneOf.group(1).trim().split("\\s+")));
        }
    }

    private static int readErrors(String file, String[] lines, int from, List<String> errors) {
        int i = from;
        while (i < lines.length && lines[i].startsWith("--   ")) {
            Matcher code = ERROR_CODE.matcher(lines[i]);
            if (code.matches()) {
                errors.add(code.group(1));
            } else if (!lines[i].startsWith("--    ")) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": an ERRORS line names a code (RMQ_...) or, "
                        + "further in, describes the one above it");
            }
            i++;
        }
        return i;
    }

    private static int readNames(String[] lines, int from, List<String> names) {
        int i = from;
        while (i < lines.length && lines[i].startsWith("--   ")) {
            Matcher name = ARGUMENT.matcher(lines[i]);
            if (name.matches() && name.group(2) == null) {
                names.add(name.group(1));
            }
            i++;
        }
        return i;
    }
}
