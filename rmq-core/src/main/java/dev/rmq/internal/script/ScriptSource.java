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

    /** A script on keys of its own: its prologue and its file, without lib.lua and replay.lua. */
    static ScriptSource assemble(String file, String body, ScriptHeader header) {
        Builder builder = new Builder();
        builder.add(file + " (ARGV prologue)", Prologue.of(file, header.argv()));
        builder.add(file + " (wrapper)", "local function rmq_main()");
        builder.add(file, body);
        builder.add(file + " (wrapper)", "end\nreturn rmq_main()");
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

    /**
     * The Lua that reads ARGV as the script's ARGV block lays it out: the table {@code ARG} with each single
     * argument and each group (a nested table) by name, a list as its row count, and for a list a local function
     * {@code ARG_<list>(i)} that returns the fields of row {@code i} in the order the block lists them. Rows are
     * read where they are used, so that a call of a thousand rows allocates nothing per row. A call whose
     * argument count does not fit is refused with {@code RMQ_ARGV} before anything runs.
     */
    static final class Prologue {

        private Prologue() {
        }

        static String of(String file, ArgvLayout layout) {
            StringBuilder table = new StringBuilder("local ARG = {");
            StringBuilder rows = new StringBuilder();
            String countCheck = null;
            int at = 1;
            for (ArgvLayout.Entry entry : layout.entries()) {
                if (at > 1) {
                    table.append(',');
                }
                table.append(' ').append(entry.name()).append(" = ");
                switch (entry.kind()) {
                    case SCALAR -> table.append("ARGV[").append(at++).append(']');
                    case GROUP -> {
                        table.append('{');
                        for (int f = 0; f < entry.fields().size(); f++) {
                            table.append(f == 0 ? " " : ", ").append(entry.fields().get(f)).append(" = ARGV[")
                                    .append(at++).append(']');
                        }
                        table.append(" }");
                    }
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
