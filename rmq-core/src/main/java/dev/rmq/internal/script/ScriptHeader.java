package dev.rmq.internal.script;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Lua file's header comment declares, read the way lib.lua describes: the {@code ARGV} block of a
 * script, and in lib.lua the {@code KEYS} block and the {@code ARGV GROUP} blocks.
 *
 * <pre>
 * -- ARGV
 * --   type            'R', 'P' or 'F'            one argument (three spaces in)
 * --   policy{}        the retry policy            a group declared in lib.lua
 * --   messages[]      the messages, each:        a list: its length, then its rows
 * --     key           the merge key              a field of a row (five spaces in)
 * --                   more description           anything indented further, or ending the block
 * -- RETURNS ...
 * </pre>
 *
 * @param file    the file the header was read from
 * @param argv    the ARGV block, empty when the file has none
 * @param keys    the KEYS block's names in order (lib.lua)
 * @param groups  the ARGV GROUP blocks by name, each its field names in order (lib.lua)
 * @param returns the text of the RETURNS paragraph, for checks of the words a reply may hold
 */
public record ScriptHeader(String file, ArgvLayout argv, List<String> keys, Map<String, List<String>> groups,
                           String returns) {

    private static final Pattern ARGUMENT = Pattern.compile("^--   ([a-z_][a-z0-9_]*)(\\[]|\\{})?(?:\\s.*)?$");
    private static final Pattern ROW_FIELD = Pattern.compile("^--     ([a-z_][a-z0-9_]*)(?:\\s.*)?$");
    private static final Pattern GROUP_START = Pattern.compile("^-- ARGV GROUP ([a-z_][a-z0-9_]*):.*$");

    /**
     * Reads the header of {@code source}; {@code groups} are lib.lua's, for the {@code name{}} arguments.
     *
     * @throws IllegalStateException when the header does not follow the format, naming the file and line
     */
    public static ScriptHeader parse(String file, String source, Map<String, List<String>> groups) {
        String[] lines = source.split("\n", -1);
        List<ArgvLayout.Entry> argv = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        Map<String, List<String>> declared = new LinkedHashMap<>();
        StringBuilder returns = new StringBuilder();
        int i = 0;
        while (i < lines.length && lines[i].startsWith("--")) {
            String line = lines[i];
            Matcher group = GROUP_START.matcher(line);
            if (line.equals("-- ARGV")) {
                i = readArgv(file, lines, i + 1, groups, argv);
            } else if (line.equals("-- KEYS")) {
                i = readNames(lines, i + 1, keys);
            } else if (group.matches()) {
                List<String> fields = new ArrayList<>();
                i = readNames(lines, i + 1, fields);
                declared.put(group.group(1), List.copyOf(fields));
            } else if (line.startsWith("-- RETURNS")) {
                returns.append(line.substring("-- RETURNS".length()));
                i++;
                while (i < lines.length && lines[i].startsWith("--   ")) {
                    returns.append(' ').append(lines[i].substring(2).trim());
                    i++;
                }
            } else {
                i++;
            }
        }
        return new ScriptHeader(file, new ArgvLayout(argv), List.copyOf(keys), declared, returns.toString().trim());
    }

    private static int readArgv(String file, String[] lines, int from, Map<String, List<String>> groups,
                                List<ArgvLayout.Entry> argv) {
        int i = from;
        String rowsName = null;
        List<String> rowFields = null;
        while (i < lines.length && lines[i].startsWith("--   ")) {
            Matcher argument = ARGUMENT.matcher(lines[i]);
            Matcher field = ROW_FIELD.matcher(lines[i]);
            if (argument.matches()) {
                if (rowsName != null) {
                    argv.add(new ArgvLayout.Entry(rowsName, ArgvLayout.Kind.ROWS, rowFields));
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
                    argv.add(new ArgvLayout.Entry(name, ArgvLayout.Kind.GROUP, fields));
                } else {
                    argv.add(new ArgvLayout.Entry(name, ArgvLayout.Kind.SCALAR, List.of()));
                }
            } else if (field.matches()) {
                if (rowsName == null) {
                    throw new IllegalStateException(file + ":" + (i + 1) + ": row field '" + field.group(1)
                            + "' is not under a list argument (name[])");
                }
                rowFields.add(field.group(1));
            }
            i++;
        }
        if (rowsName != null) {
            argv.add(new ArgvLayout.Entry(rowsName, ArgvLayout.Kind.ROWS, rowFields));
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
