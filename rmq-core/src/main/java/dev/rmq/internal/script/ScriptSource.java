package dev.rmq.internal.script;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua source Redis runs for one script, put together from its parts, in two forms with one body: for EVAL,
 * and as a Redis Function library (see {@link #functionCode}). Both define the script as {@code rmq_call(KEYS,
 * ARGV)}: lib.lua (its header, and the functions the script calls: see {@link LibraryParts}) outside it, once per
 * load; inside it, what each call needs: the slot's keys bound, lib.lua's {@code begin_call}, a prologue generated
 * from the script's ARGV block (it builds the table {@code ARG} and checks the argument count), the script's own
 * file as the body of {@code rmq_main}, and replay.lua. The EVAL form ends by calling it; the library registers
 * it, so that Redis defines lib.lua's functions once instead of on every call. The source remembers where each
 * part starts, so that an error Redis reports at a line of the whole source can be told at the line of the file
 * it came from.
 */
final class ScriptSource {

    /** A line of an EVAL script, or of a Function library, in a Redis error. */
    private static final Pattern REDIS_LINE = Pattern.compile("user_(script|function):(\\d+)");
    /** The line Redis adds before a library's code: its {@code #!lua name=...} line. */
    private static final int LIBRARY_HEADER_LINES = 1;

    private final String text;
    private final String body;
    private final List<Part> parts;

    /** Lines {@code first .. first + lines - 1} of the whole source are lines {@code fileLine..} of {@code file}. */
    private record Part(String file, int first, int lines, int fileLine) {
    }

    private static final Pattern KEY_USE = Pattern.compile("\\bK_([A-Z]+)\\b");

    private final int[] keys;

    private ScriptSource(Builder builder, int[] keys) {
        this.body = builder.text.toString();
        this.text = body + "return rmq_call(KEYS, ARGV)\n";
        this.parts = List.copyOf(builder.parts);
        this.keys = keys;
    }

    /**
     * A script of one slot. {@code keyNames} are the slot's keys in the order of lib.lua's KEYS block; the source
     * binds those the script uses ({@link #keys()}), in that order, as {@code K_<NAME>}, and the call key after them
     * as {@code CALL_KEY}.
     */
    static ScriptSource assemble(String file, String body, ScriptHeader header, LibraryParts lib, String replay,
                                 List<String> keyNames) {
        List<LibraryParts.Part> needed = lib.neededBy(body, replay, BEGIN_CALL);
        StringBuilder code = new StringBuilder(body).append('\n').append(replay);
        needed.forEach(part -> code.append('\n').append(part.text()));
        int[] keys = usedKeys(file, code.toString(), keyNames);
        Builder builder = new Builder();
        builder.add(file + " (KEYS)", declarations(keys, keyNames));
        for (LibraryParts.Part part : needed) {
            builder.add("lib.lua", part.text(), part.firstLine());
        }
        builder.add(file + " (call)", "local function rmq_call(KEYS, ARGV)\n" + bindings(keys, keyNames) + "\n"
                + BEGIN_CALL);
        builder.add(file + " (ARGV prologue)", Prologue.of(file, header.argv()));
        builder.add(file + " (call)", "local function rmq_main()");
        builder.add(file, body);
        builder.add(file + " (call)", "end");
        builder.add("replay.lua", replay);
        builder.add(file + " (call)", "end");
        return new ScriptSource(builder, keys);
    }

    /** A script on keys of its own: its prologue and its file, without lib.lua and replay.lua. */
    static ScriptSource assemble(String file, String body, ScriptHeader header) {
        Builder builder = new Builder();
        builder.add(file + " (call)", "local function rmq_call(KEYS, ARGV)");
        builder.add(file + " (ARGV prologue)", Prologue.of(file, header.argv()));
        builder.add(file + " (call)", "local function rmq_main()");
        builder.add(file, body);
        builder.add(file + " (call)", "end\nreturn rmq_main()\nend");
        return new ScriptSource(builder, new int[0]);
    }

    /** The call of lib.lua's function that starts every call of a slot's script. */
    private static final String BEGIN_CALL = "begin_call()";

    /** The Lua that declares the keys a script receives, bound on each call: {@code local K_STORE, ..., CALL_KEY}. */
    private static String declarations(int[] keys, List<String> keyNames) {
        StringBuilder lua = new StringBuilder("local ");
        for (int key : keys) {
            lua.append("K_").append(keyNames.get(key).toUpperCase(java.util.Locale.ROOT)).append(", ");
        }
        return lua.append("CALL_KEY").toString();
    }

    /** Indexes into the slot's key names of the keys the code uses, in that order. */
    private static int[] usedKeys(String file, String code, List<String> keyNames) {
        java.util.TreeSet<Integer> used = new java.util.TreeSet<>();
        Matcher use = KEY_USE.matcher(LibraryParts.withoutComments(code));
        while (use.find()) {
            int index = keyNames.indexOf(use.group(1).toLowerCase(java.util.Locale.ROOT));
            if (index < 0) {
                throw new IllegalStateException(file + " uses K_" + use.group(1) + ", which is not one of lib.lua's KEYS "
                        + keyNames);
            }
            used.add(index);
        }
        return used.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The Lua that binds the keys a call receives: {@code K_STORE = KEYS[1]}, ..., then the call key. */
    private static String bindings(int[] keys, List<String> keyNames) {
        StringBuilder lua = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            lua.append("K_").append(keyNames.get(keys[i]).toUpperCase(java.util.Locale.ROOT)).append(" = KEYS[")
                    .append(i + 1).append("]\n");
        }
        return lua.append("CALL_KEY = KEYS[").append(keys.length + 1).append(']').toString();
    }

    /** The EVAL form. */
    String text() {
        return text;
    }

    /**
     * The library form's code, to follow the {@code #!lua name=<library>} line Redis needs first: the script's
     * call registered as the function {@code name}. {@code refusedWhenFull} leaves out the {@code allow-oom} flag,
     * so that Redis refuses the call while its memory is full, as it refuses a write; without the flag Redis would
     * refuse every call of the function then, even one that frees memory, such as an acknowledgement.
     */
    String functionCode(String name, boolean refusedWhenFull) {
        return body + "redis.register_function{function_name='" + name + "', callback=rmq_call"
                + (refusedWhenFull ? "" : ", flags={'allow-oom'}") + "}\n";
    }

    /**
     * The slot's keys the script uses, as indexes into lib.lua's KEYS, in the order it receives them. The array is
     * the script's own, read on every call: callers must not change it.
     */
    int[] keys() {
        return keys;
    }

    /** The file and line of a line of the EVAL form, e.g. {@code send.lua:12}. */
    String locate(int line) {
        for (Part part : parts) {
            if (line >= part.first && line < part.first + part.lines) {
                return part.file + ":" + (line - part.first + part.fileLine);
            }
        }
        return "line " + line + " of the assembled script";
    }

    /** {@code message} with every {@code user_script:N} and {@code user_function:N} told as the file and line. */
    String relocate(String message) {
        Matcher matcher = REDIS_LINE.matcher(message);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            int line = Integer.parseInt(matcher.group(2));
            int offset = matcher.group(1).equals("function") ? LIBRARY_HEADER_LINES : 0;
            matcher.appendReplacement(out, Matcher.quoteReplacement(locate(line - offset)));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static final class Builder {
        final StringBuilder text = new StringBuilder();
        final List<Part> parts = new ArrayList<>();
        int nextLine = 1;

        void add(String file, String source) {
            add(file, source, 1);
        }

        void add(String file, String source, int fileLine) {
            String trimmed = source.endsWith("\n") ? source.substring(0, source.length() - 1) : source;
            int lines = trimmed.split("\n", -1).length;
            parts.add(new Part(file, nextLine, lines, fileLine));
            text.append(trimmed).append('\n');
            nextLine += lines;
        }
    }

    /**
     * The Lua that reads ARGV as the script's ARGV block lays it out: the table {@code ARG} with each single
     * argument and each group (its one argument, the fields separated by spaces) by name, a list as its row count, and for a list a local function
     * {@code ARG_<list>(i)} that returns the fields of row {@code i} in the order the block lists them. Rows are
     * read where they are used, so that a call of a thousand rows allocates nothing per row. A call whose
     * argument count does not fit is refused with {@code RMQ_ARGV} before anything runs.
     */
    static final class Prologue {

        private Prologue() {
        }

        static String of(String file, FieldLayout layout) {
            StringBuilder table = new StringBuilder("local ARG = {");
            StringBuilder rows = new StringBuilder();
            String countCheck = null;
            int at = 1;
            for (FieldLayout.Entry entry : layout.entries()) {
                if (at > 1) {
                    table.append(',');
                }
                table.append(' ').append(entry.name()).append(" = ");
                switch (entry.kind()) {
                    case SCALAR -> table.append("ARGV[").append(at++).append(']');
                    // one argument, its fields separated by spaces, for the script to read as it needs them
                    case GROUP -> table.append("ARGV[").append(at++).append(']');
                    case ROWS -> {
                        int width = entry.fields().size();
                        int countAt = at;
                        table.append("tonumber(ARGV[").append(countAt).append("])");
                        rows.append("local function ARG_").append(entry.name()).append("(i)\n")
                                .append("    local at = ").append(countAt + 1 - width).append(" + ").append(width)
                                .append(" * i\n    return ");
                        for (int f = 0; f < width; f++) {
                            rows.append(f == 0 ? "" : ", ").append("ARGV[at").append(f == 0 ? "" : " + " + f).append(']');
                        }
                        rows.append("\nend\n");
                        countCheck = "ARG." + entry.name() + " == nil or " + countAt + " + " + width + " * ARG."
                                + entry.name() + " ~= #ARGV";
                        at++;
                    }
                }
            }
            table.append(" }\n");
            String check = countCheck != null ? countCheck : "#ARGV ~= " + (at - 1);
            return table + rows.toString() + "if " + check + " then\n    return redis.error_reply('RMQ_ARGV " + file
                    + " takes " + String.join(", ", layout.describe()) + "; it got ' .. #ARGV .. ' arguments')\nend";
        }
    }
}
