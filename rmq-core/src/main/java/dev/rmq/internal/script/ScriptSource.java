package dev.rmq.internal.script;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua source Redis runs for one script, put together from its parts, in two forms: for EVAL, and as a Redis
 * Function library (see {@link #functionCode}). Both start with lib.lua (its header, and the functions the script
 * calls: see {@link LibraryParts}) and define the script as {@code rmq_call(KEYS, ARGV)}, which holds what each
 * call needs: the slot's keys bound, lib.lua's {@code begin_call}, the call's arguments put into the table
 * {@code ARG} and their count checked (see {@link Prologue}), and replay.lua, which calls {@code rmq_main}, the
 * script's own file.
 * <ul>
 * <li>The library defines {@code ARG}, the readers of the ARGV block's lists and {@code rmq_main} beside
 * {@code rmq_call}, once per load, and registers {@code rmq_call}. Made inside it, the closures and the table cost
 * a call of one message about 7 % of its instructions.</li>
 * <li>EVAL runs the whole source on every call, and ends by calling {@code rmq_call}. Its form defines them inside
 * {@code rmq_call}: a function defined at the top would capture each of lib.lua's functions it calls anew on every
 * call, which cost a call 3 to 5 % more.</li>
 * </ul>
 * The source remembers where each part starts, so that an error Redis reports at a line of either form can be told
 * at the line of the file it came from.
 */
final class ScriptSource {

    /** A line of an EVAL script, or of a Function library, in a Redis error. */
    private static final Pattern REDIS_LINE = Pattern.compile("user_(script|function):(\\d+)");
    /** The line Redis adds before a library's code: its {@code #!lua name=...} line. */
    private static final int LIBRARY_HEADER_LINES = 1;

    private final Form eval;
    private final Form library;

    /** Lines {@code first .. first + lines - 1} of the whole source are lines {@code fileLine..} of {@code file}. */
    private record Part(String file, int first, int lines, int fileLine) {
    }

    private static final Pattern KEY_USE = Pattern.compile("\\bK_([A-Z]+)\\b");

    private final int[] keys;

    /** One form's source, and where each of its parts starts. */
    private record Form(String text, List<Part> parts) {

        Form(Builder builder) {
            this(builder.text.toString(), List.copyOf(builder.parts));
        }

        /** The file and line of a line of this form, e.g. {@code send.lua:12}. */
        String locate(int line) {
            for (Part part : parts) {
                if (line >= part.first && line < part.first + part.lines) {
                    return part.file + ":" + (line - part.first + part.fileLine);
                }
            }
            return "line " + line + " of the assembled script";
        }
    }

    private ScriptSource(Builder eval, Builder library, int[] keys) {
        eval.add("(EVAL)", "return rmq_call(KEYS, ARGV)");
        this.eval = new Form(eval);
        this.library = new Form(library);
        this.keys = keys;
    }

    /**
     * A script of one slot. {@code keyNames} are the slot's keys in the order of lib.lua's KEYS block; the source
     * binds those the script uses ({@link #keys()}), in that order, as {@code K_<NAME>}, and the call key after them
     * as {@code CALL_KEY}. A script whose code calls lib.lua's {@code begin_slot} also takes calls of several
     * slots: those keys once per slot, one block after another, then the call key.
     */
    static ScriptSource assemble(String file, String body, ScriptHeader header, LibraryParts lib, String replay,
                                 List<String> keyNames) {
        List<LibraryParts.Part> needed = lib.neededBy(body, replay, BEGIN_CALL);
        StringBuilder code = new StringBuilder(body).append('\n').append(replay);
        needed.forEach(part -> code.append('\n').append(part.text()));
        int[] keys = usedKeys(file, code.toString(), keyNames);
        boolean severalSlots = needed.stream().anyMatch(part -> BEGIN_SLOT.equals(part.function()));
        String call = "local function rmq_call(KEYS, ARGV)\n"
                + (severalSlots ? blockBindings(file, keys, keyNames) : bindings(keys, keyNames)) + "\n" + BEGIN_CALL;
        Prologue prologue = Prologue.of(file, header.argv());
        Builder[] forms = { new Builder(), new Builder() };
        for (Builder form : forms) {
            form.add(file + " (KEYS)", declarations(keys, keyNames));
            if (severalSlots) {
                form.add(file + " (KEYS of several slots)", blockBinder(keys, keyNames));
            }
            for (LibraryParts.Part part : needed) {
                form.add("lib.lua", part.text(), part.firstLine());
            }
        }
        Builder eval = forms[0];
        eval.add(file + " (call)", call);
        eval.add(file + " (ARGV readers)", prologue.definitions());
        eval.add(file + " (ARGV prologue)", prologue.perCall());
        main(eval, file, body);
        eval.add("replay.lua", replay);
        eval.add(file + " (call)", "end");
        Builder library = forms[1];
        library.add(file + " (ARGV readers)", prologue.definitions());
        main(library, file, body);
        library.add(file + " (call)", call);
        library.add(file + " (ARGV prologue)", prologue.perCall());
        library.add("replay.lua", replay);
        library.add(file + " (call)", "end");
        return new ScriptSource(eval, library, keys);
    }

    /**
     * A script on keys of its own: its prologue and its file, without lib.lua and replay.lua. Its file reads
     * {@code KEYS}, so in both forms it is defined inside {@code rmq_call}.
     */
    static ScriptSource assemble(String file, String body, ScriptHeader header) {
        Prologue prologue = Prologue.of(file, header.argv());
        Builder[] forms = { new Builder(), new Builder() };
        for (Builder form : forms) {
            form.add(file + " (call)", "local function rmq_call(KEYS, ARGV)");
            form.add(file + " (ARGV readers)", prologue.definitions());
            form.add(file + " (ARGV prologue)", prologue.perCall());
            main(form, file, body);
            form.add(file + " (call)", "local reply = rmq_main()\nCALL_ARGV = nil\nreturn reply\nend");
        }
        return new ScriptSource(forms[0], forms[1], new int[0]);
    }

    /** The script's own file, as the function {@code rmq_main}. */
    private static void main(Builder form, String file, String body) {
        form.add(file + " (call)", "local function rmq_main()");
        form.add(file, body);
        form.add(file + " (call)", "end");
    }

    /** The call of lib.lua's function that starts every call of a slot's script. */
    private static final String BEGIN_CALL = "begin_call()";

    /** lib.lua's function that moves a call of several slots on to the next; a script that calls it takes such calls. */
    private static final String BEGIN_SLOT = "begin_slot";

    /**
     * For a script that takes calls of several slots, the Lua that binds a block of the call's keys, defined once
     * per load: {@code bind_slot(g)} binds block {@code g} (0 the first) as {@code K_<NAME>}, and
     * {@code slot_block_bound(g)} tells whether the call holds that block whole. {@code SLOT_KEYS} is the call's
     * KEYS, set as each call starts.
     */
    private static String blockBinder(int[] keys, List<String> keyNames) {
        StringBuilder names = new StringBuilder();
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            names.append(i == 0 ? "" : ", ").append(bound(keyNames, keys[i]));
            values.append(i == 0 ? "" : ", ").append("SLOT_KEYS[at + ").append(i + 1).append(']');
        }
        return "local SLOT_KEYS\n"
                + "local function bind_slot(g)\n    local at = g * " + keys.length + "\n    " + names + " = " + values
                + "\nend\n"
                + "local function slot_block_bound(g)\n    return #SLOT_KEYS >= (g + 1) * " + keys.length + "\nend";
    }

    /**
     * The Lua that binds the first block of a call of several slots (as a call of one slot binds its keys: a call of
     * bind_slot would cost every call), and the call key: the last key, where the count of keys is one more than a
     * whole number of blocks. A block of one key would leave that ambiguous.
     */
    private static String blockBindings(String file, int[] keys, List<String> keyNames) {
        if (keys.length < 2) {
            throw new IllegalStateException(file + " takes calls of several slots, but uses " + keys.length
                    + " key(s) of each: a call key after whole blocks of one key could not be told from a block");
        }
        return keyBindings(keys, keyNames) + "SLOT_KEYS = KEYS\nCALL_KEY = #KEYS % " + keys.length
                + " == 1 and KEYS[#KEYS] or nil";
    }

    /** The Lua that declares the keys a script receives, bound on each call: {@code local K_STORE, ..., CALL_KEY}. */
    private static String declarations(int[] keys, List<String> keyNames) {
        StringBuilder lua = new StringBuilder("local ");
        for (int key : keys) {
            lua.append(bound(keyNames, key)).append(", ");
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

    /** The name the script reads key {@code index} of the slot by: {@code K_STORE}, ... */
    private static String bound(List<String> keyNames, int index) {
        return "K_" + keyNames.get(index).toUpperCase(java.util.Locale.ROOT);
    }

    /** The Lua that binds the keys a call receives: {@code K_STORE = KEYS[1]}, ..., then the call key. */
    private static String bindings(int[] keys, List<String> keyNames) {
        return keyBindings(keys, keyNames) + "CALL_KEY = KEYS[" + (keys.length + 1) + "]";
    }

    /** The lines that bind the keys of the call's first slot: {@code K_STORE = KEYS[1]}, ... */
    private static String keyBindings(int[] keys, List<String> keyNames) {
        StringBuilder lua = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            lua.append(bound(keyNames, keys[i])).append(" = KEYS[").append(i + 1).append("]\n");
        }
        return lua.toString();
    }

    /** The EVAL form. */
    String text() {
        return eval.text();
    }

    /**
     * The library form's code, to follow the {@code #!lua name=<library>} line Redis needs first: the script's
     * call registered as the function {@code name}. {@code refusedWhenFull} leaves out the {@code allow-oom} flag,
     * so that Redis refuses the call while its memory is full, as it refuses a write; without the flag Redis would
     * refuse every call of the function then, even one that frees memory, such as an acknowledgement.
     */
    String functionCode(String name, boolean refusedWhenFull) {
        return library.text() + "redis.register_function{function_name='" + name + "', callback=rmq_call"
                + (refusedWhenFull ? "" : ", flags={'allow-oom'}") + "}\n";
    }

    /**
     * The slot's keys the script uses, as indexes into lib.lua's KEYS, in the order it receives them. The array is
     * the script's own, read on every call: callers must not change it.
     */
    int[] keys() {
        return keys;
    }

    /** {@code message} with every {@code user_script:N} and {@code user_function:N} told as the file and line. */
    String relocate(String message) {
        Matcher matcher = REDIS_LINE.matcher(message);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            int line = Integer.parseInt(matcher.group(2));
            String located = matcher.group(1).equals("function") ? library.locate(line - LIBRARY_HEADER_LINES)
                    : eval.locate(line);
            matcher.appendReplacement(out, Matcher.quoteReplacement(located));
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
     * The Lua that reads ARGV as the script's ARGV block lays it out, in two parts. {@link #definitions}, run once
     * per load: the table {@code ARG}, and for a list a function {@code ARG_<list>(i)} that returns the fields of
     * row {@code i} in the order the block lists them, reading the call's arguments from {@code CALL_ARGV}.
     * {@link #perCall}: {@code CALL_ARGV} set to the call's ARGV, {@code ARG}'s fields set to each single argument
     * and each group (its one argument, the fields separated by spaces) by name, a list as its row count, and a
     * call whose argument count does not fit refused with {@code RMQ_ARGV} before anything runs. Every call sets
     * every field, so the table is reused, and no script writes to it. Rows are read where they are used, so that a
     * call of a thousand rows allocates nothing per row. The script's wrapper sets {@code CALL_ARGV} to nil when
     * the call is over, so that a large call's arguments are not kept until the next one.
     */
    record Prologue(String definitions, String perCall) {

        static Prologue of(String file, FieldLayout layout) {
            List<String> names = new ArrayList<>();
            List<String> values = new ArrayList<>();
            StringBuilder rows = new StringBuilder();
            String countCheck = null;
            int at = 1;
            for (FieldLayout.Entry entry : layout.entries()) {
                names.add(entry.name());
                switch (entry.kind()) {
                    case SCALAR -> values.add("ARGV[" + at++ + "]");
                    // one argument, its fields separated by spaces, for the script to read as it needs them
                    case GROUP -> values.add("ARGV[" + at++ + "]");
                    case ROWS -> {
                        int width = entry.fields().size();
                        int countAt = at;
                        values.add("tonumber(ARGV[" + countAt + "])");
                        rows.append("local function ARG_").append(entry.name()).append("(i)\n")
                                .append("    local at = ").append(countAt + 1 - width).append(" + ").append(width)
                                .append(" * i\n    return ");
                        for (int f = 0; f < width; f++) {
                            rows.append(f == 0 ? "" : ", ").append("CALL_ARGV[at").append(f == 0 ? "" : " + " + f)
                                    .append(']');
                        }
                        rows.append("\nend\n");
                        countCheck = "ARG." + entry.name() + " == nil or " + countAt + " + " + width + " * ARG."
                                + entry.name() + " ~= #ARGV";
                        at++;
                    }
                }
            }
            // made with its fields, so that Redis sizes it once: EVAL makes it again on every call
            String definitions = "local CALL_ARGV\nlocal ARG = {"
                    + names.stream().map(name -> " " + name + " = false").collect(Collectors.joining(",")) + " }\n" + rows;
            String assign = names.isEmpty() ? "" : names.stream().map(name -> "ARG." + name)
                    .collect(Collectors.joining(", ")) + " = " + String.join(", ", values) + "\n";
            String check = countCheck != null ? countCheck : "#ARGV ~= " + (at - 1);
            String perCall = "CALL_ARGV = ARGV\n" + assign + "if " + check + " then\n    CALL_ARGV = nil\n"
                    + "    return redis.error_reply('RMQ_ARGV " + file + " takes " + String.join(", ", layout.describe())
                    + "; it got ' .. #ARGV .. ' arguments')\nend";
            return new Prologue(definitions, perCall);
        }
    }
}
