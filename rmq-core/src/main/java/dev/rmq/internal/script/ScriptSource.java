package dev.rmq.internal.script;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua source Redis runs for one script, put together from its parts: lib.lua, a prologue generated from
 * the script's ARGV block (it builds the table {@code ARG} and checks the argument count), the script's own
 * file as the body of {@code rmq_main}, and replay.lua. It remembers where each part starts, so that an
 * error Redis reports at a line of the whole source can be told at the line of the file it came from.
 */
final class ScriptSource {

    private static final Pattern REDIS_LINE = Pattern.compile("user_script:(\\d+)");

    private final String text;
    private final List<Part> parts;

    /** Lines {@code first .. first + lines - 1} of the whole source are lines 1.. of {@code file}. */
    private record Part(String file, int first, int lines) {
    }

    private ScriptSource(String text, List<Part> parts) {
        this.text = text;
        this.parts = parts;
    }

    static ScriptSource assemble(String file, String body, ScriptHeader header, String lib, String replay) {
        Builder builder = new Builder();
        builder.add("lib.lua", lib);
        builder.add(file + " (ARGV prologue)", Prologue.of(file, header.argv()));
        builder.add(file + " (wrapper)", "local function rmq_main()");
        builder.add(file, body);
        builder.add(file + " (wrapper)", "end");
        builder.add("replay.lua", replay);
        return new ScriptSource(builder.text.toString(), List.copyOf(builder.parts));
    }

    String text() {
        return text;
    }

    /** The file and line of a line of the whole source, e.g. {@code send.lua:12}. */
    String locate(int line) {
        for (Part part : parts) {
            if (line >= part.first && line < part.first + part.lines) {
                return part.file + ":" + (line - part.first + 1);
            }
        }
        return "line " + line + " of the assembled script";
    }

    /** {@code message} with every {@code user_script:N} told as the file and line it came from. */
    String relocate(String message) {
        Matcher matcher = REDIS_LINE.matcher(message);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(out, Matcher.quoteReplacement(locate(Integer.parseInt(matcher.group(1)))));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static final class Builder {
        final StringBuilder text = new StringBuilder();
        final List<Part> parts = new ArrayList<>();
        int nextLine = 1;

        void add(String file, String source) {
            String trimmed = source.endsWith("\n") ? source.substring(0, source.length() - 1) : source;
            int lines = trimmed.split("\n", -1).length;
            parts.add(new Part(file, nextLine, lines));
            text.append(trimmed).append('\n');
            nextLine += lines;
        }
    }

    /** The Lua that turns ARGV into the table ARG, as the ARGV block of the script's header lays it out. */
    static final class Prologue {

        private Prologue() {
        }

        static String of(String file, ArgvLayout layout) {
            StringBuilder lua = new StringBuilder("local ARG = {}\nlocal ARG_COUNT_OK = true\ndo\n    local at = 1\n");
            for (ArgvLayout.Entry entry : layout.entries()) {
                switch (entry.kind()) {
                    case SCALAR -> lua.append("    ARG.").append(entry.name()).append(" = ARGV[at]\n    at = at + 1\n");
                    case GROUP -> {
                        lua.append("    ARG.").append(entry.name()).append(" = {");
                        appendFields(lua, entry.fields());
                        lua.append("}\n    at = at + ").append(entry.fields().size()).append('\n');
                    }
                    case ROWS -> {
                        lua.append("    local count = tonumber(ARGV[at])\n    at = at + 1\n    local rows = {}\n")
                                .append("    if count == nil then\n        ARG_COUNT_OK = false\n    else\n")
                                .append("        for i = 1, count do\n            rows[i] = {");
                        appendFields(lua, entry.fields());
                        lua.append("}\n            at = at + ").append(entry.fields().size()).append('\n')
                                .append("        end\n    end\n    ARG.").append(entry.name()).append(" = rows\n");
                    }
                }
            }
            lua.append("    if at - 1 ~= #ARGV then\n        ARG_COUNT_OK = false\n    end\nend\n")
                    .append("if not ARG_COUNT_OK then\n    return redis.error_reply('RMQ_ARGV ").append(file)
                    .append(" takes ").append(String.join(", ", layout.describe())).append("; it got ' .. #ARGV .. ' arguments')\nend");
            return lua.toString();
        }

        private static void appendFields(StringBuilder lua, List<String> fields) {
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) {
                    lua.append(", ");
                }
                lua.append(fields.get(i)).append(" = ARGV[at").append(i == 0 ? "" : " + " + i).append(']');
            }
        }
    }
}
