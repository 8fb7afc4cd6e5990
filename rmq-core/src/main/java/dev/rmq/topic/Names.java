package dev.rmq.topic;

import org.jspecify.annotations.Nullable;

import java.util.regex.Pattern;

/**
 * Checks the names that become part of Redis keys. A name must keep the slot's hash tag intact, so
 * braces and whitespace are refused; the allowed set is deliberately small so that every key is
 * printable and predictable.
 */
public final class Names {

    /** The longest accepted topic or namespace name. */
    public static final int MAX_LENGTH = 128;

    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]*");

    private Names() {
    }

    /**
     * Returns the name when it is valid.
     *
     * @param what what the name is for, used in the message ("topic name", "namespace")
     * @param name the name to check; null is refused, as an empty name is
     * @throws IllegalArgumentException naming what was wrong and what is allowed
     */
    public static String check(String what, @Nullable String name) {
        if (name == null || name.isEmpty()) {
            throw invalid(what, name, "it is empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw invalid(what, name, "it is " + name.length() + " characters long, the limit is " + MAX_LENGTH);
        }
        if (!ALLOWED.matcher(name).matches()) {
            throw invalid(what, name, describeFirstBadCharacter(name));
        }
        return name;
    }

    private static String describeFirstBadCharacter(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '{' || c == '}') {
                return "it contains a brace, which would break the Redis Cluster hash tag";
            }
            if (Character.isWhitespace(c)) {
                return "it contains whitespace at index " + i;
            }
            if (!ALLOWED.matcher(String.valueOf(c)).matches() && ".:_-".indexOf(c) < 0) {
                return "it contains the character '" + c + "' at index " + i;
            }
        }
        return "it must start with a letter or digit";
    }

    private static IllegalArgumentException invalid(String what, @Nullable String name, String reason) {
        return new IllegalArgumentException(what + " " + (name == null ? "null" : "'" + name + "'") + " is invalid: "
                + reason + "; allowed are 1 to " + MAX_LENGTH + " ASCII letters, digits, '.', '_', ':' and '-',"
                + " starting with a letter or digit");
    }
}
