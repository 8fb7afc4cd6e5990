package dev.rmq.internal.script;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * lib.lua cut into what every script needs (its header: the keys, constants and the clock) and its functions, so
 * that each script carries only the functions it calls. By EVALSHA, Redis runs a script's whole source on every
 * call, and every function definition it passes costs a closure: a single send would otherwise pay for the dozens
 * of functions only other scripts call. (A Function library defines them once per load.) A function is a {@code local function name(...)} at the start of a line
 * through the next line that is exactly {@code end}, with the comment lines right above it.
 */
final class LibraryParts {

    private static final Pattern FUNCTION = Pattern.compile("^local function ([A-Za-z_][A-Za-z0-9_]*)\\(");

    /**
     * Lines of lib.lua, from {@code firstLine} (1-based), kept together.
     *
     * @param function the function they define, or null for a part every script keeps
     */
    record Part(@Nullable String function, int firstLine, String text) {
    }

    private final List<Part> parts;

    private LibraryParts(List<Part> parts) {
        this.parts = parts;
    }

    static LibraryParts parse(String source) {
        String[] lines = source.split("\n", -1);
        List<Part> parts = new ArrayList<>();
        int i = 0;
        while (i < lines.length) {
            int start = i;
            // comment lines right above a function belong to it
            int at = i;
            while (at < lines.length && lines[at].startsWith("--")) {
                at++;
            }
            Matcher function = at < lines.length ? FUNCTION.matcher(lines[at]) : null;
            if (function != null && function.find()) {
                int end = at;
                while (end < lines.length && !lines[end].equals("end")) {
                    end++;
                }
                if (end == lines.length) {
                    throw new IllegalStateException("lib.lua:" + (at + 1) + ": function " + function.group(1)
                            + " has no line that is exactly 'end'");
                }
                parts.add(new Part(function.group(1), start + 1, join(lines, start, end + 1)));
                i = end + 1;
            } else {
                // up to the next function's comments or definition: kept by every script
                int end = Math.max(at, i + 1);
                while (end < lines.length && !startsFunction(lines, end)) {
                    end++;
                }
                parts.add(new Part(null, start + 1, join(lines, start, end)));
                i = end;
            }
        }
        return new LibraryParts(List.copyOf(parts));
    }

    /** Whether line {@code i} starts a function: its definition, or the first of the comment lines above one. */
    private static boolean startsFunction(String[] lines, int i) {
        if (i > 0 && lines[i - 1].startsWith("--")) {
            return false;
        }
        int at = i;
        while (at < lines.length && lines[at].startsWith("--")) {
            at++;
        }
        return at < lines.length && FUNCTION.matcher(lines[at]).find();
    }

    /**
     * The parts a script needs, in lib.lua's order: those every script keeps, and the functions that the script's
     * own code ({@code users}) or another needed part calls.
     */
    List<Part> neededBy(String... users) {
        Set<String> needed = new LinkedHashSet<>();
        List<String> pending = new ArrayList<>();
        for (String user : users) {
            pending.add(user);
        }
        for (Part part : parts) {
            if (part.function() == null) {
                pending.add(part.text());
            }
        }
        while (!pending.isEmpty()) {
            String code = withoutComments(pending.remove(pending.size() - 1));
            for (Part part : parts) {
                if (part.function() != null && !needed.contains(part.function()) && calls(code, part.function())) {
                    needed.add(part.function());
                    pending.add(part.text());
                }
            }
        }
        return parts.stream().filter(p -> p.function() == null || needed.contains(p.function())).toList();
    }

    private static boolean calls(String code, String function) {
        return Pattern.compile("\\b" + function + "\\b").matcher(code).find();
    }

    /** Lua code with its comments cut off. */
    static String withoutComments(String code) {
        StringBuilder out = new StringBuilder();
        for (String line : code.split("\n", -1)) {
            int comment = line.indexOf("--");
            out.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        return out.toString();
    }

    private static String join(String[] lines, int from, int to) {
        return String.join("\n", java.util.Arrays.asList(lines).subList(from, to));
    }
}
