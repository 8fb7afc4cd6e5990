package dev.rmq.server.api;

import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a JSON request body field by field, so that every refusal names the field and what it must be: a
 * missing or unknown field is {@code malformed-body}, a field of the wrong JSON type {@code bad-type}. A field
 * that is {@code null} counts as absent. Read by hand rather than bound to classes, because the generic binding
 * errors of a JSON library name Java types and paths, not what a client of the API has to send.
 */
public final class JsonBody {

    /** Null for a body that was left out, which reads as an empty object. */
    private final @Nullable JsonNode node;
    /** Put before field names in messages, such as {@code messages[3].} inside a batch. */
    private final String prefix;

    private JsonBody(@Nullable JsonNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    /** A required body, which must be a JSON object. */
    public static JsonBody of(@Nullable JsonNode body) {
        if (body == null || body.isNull() || body.isMissingNode()) {
            throw new ApiException(Problem.MALFORMED_BODY, "the request needs a JSON object as its body");
        }
        return object(body, "");
    }

    /** A body that may be left out, which reads as an empty object. */
    public static JsonBody optional(@Nullable JsonNode body) {
        return body == null || body.isNull() || body.isMissingNode() ? new JsonBody(null, "") : object(body, "");
    }

    /** A JSON object inside a body, such as one message of a batch; {@code path} names it in messages. */
    public static JsonBody object(@Nullable JsonNode value, String path) {
        if (value == null || !value.isObject()) {
            throw new ApiException(Problem.MALFORMED_BODY, (path.isEmpty() ? "the body" : path) + " must be a JSON"
                    + " object, was " + kind(value));
        }
        return new JsonBody(value, path.isEmpty() ? "" : path + ".");
    }

    /** Refuses any field but these, so that a misspelt one is not silently ignored. */
    public JsonBody allowOnly(Collection<String> names) {
        if (node == null) {
            return this;
        }
        for (String name : node.propertyNames()) {
            if (!names.contains(name)) {
                throw new ApiException(Problem.MALFORMED_BODY, "unknown field '" + prefix + name + "'; the fields"
                        + " allowed here are " + String.join(", ", names));
            }
        }
        return this;
    }

    public boolean has(String name) {
        return value(name) != null;
    }

    /** The value of a field, of any JSON type, or null when it is absent. */
    public @Nullable JsonNode value(String name) {
        JsonNode value = node == null ? null : node.get(name);
        return value == null || value.isNull() ? null : value;
    }

    /** The value of a required field, of any JSON type but null. */
    public JsonNode require(String name, String what) {
        JsonNode value = value(name);
        if (value == null) {
            throw missing(name, what);
        }
        return value;
    }

    /** The text of a string field, or null when it is absent. */
    public @Nullable String string(String name) {
        JsonNode value = value(name);
        if (value == null) {
            return null;
        }
        if (!value.isString()) {
            throw wrongType(name, "a string", value);
        }
        return value.stringValue();
    }

    public String requireString(String name, String what) {
        String value = string(name);
        if (value == null) {
            throw missing(name, what);
        }
        return value;
    }

    /** An integer field, or null when it is absent. */
    public @Nullable Long integer(String name) {
        JsonNode value = value(name);
        if (value == null) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw wrongType(name, "an integer", value);
        }
        return value.longValue();
    }

    /** An ISO-8601 duration such as {@code PT30S}, or null when the field is absent. */
    public @Nullable Duration duration(String name) {
        String text = text(name, "an ISO-8601 duration such as PT30S");
        if (text == null) {
            return null;
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            throw new ApiException(Problem.BAD_TYPE, "field '" + prefix + name + "' must be an ISO-8601 duration such"
                    + " as PT30S, PT5M or PT0.5S, was '" + text + "'");
        }
    }

    /** An ISO-8601 instant such as {@code 2030-01-01T12:00:00Z}, or null when the field is absent. */
    public @Nullable Instant instant(String name) {
        String text = text(name, "an ISO-8601 instant such as 2030-01-01T12:00:00Z");
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new ApiException(Problem.BAD_TYPE, "field '" + prefix + name + "' must be an ISO-8601 instant with"
                    + " its offset, such as 2030-01-01T12:00:00Z or 2030-01-01T13:00:00+01:00, was '" + text + "'");
        }
    }

    /** An object whose values are all strings, such as headers; null when the field is absent. */
    public @Nullable Map<String, String> stringMap(String name) {
        JsonNode value = value(name);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            throw wrongType(name, "an object of string values", value);
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (String key : value.propertyNames()) {
            JsonNode entry = value.get(key);
            if (entry == null || !entry.isString()) {
                throw new ApiException(Problem.BAD_TYPE, "field '" + prefix + name + "." + key + "' must be a string,"
                        + " was " + kind(entry));
            }
            result.put(key, entry.stringValue());
        }
        return result;
    }

    /** An array of strings, or null when the field is absent. */
    public @Nullable List<String> strings(String name) {
        JsonNode value = value(name);
        if (value == null) {
            return null;
        }
        if (!value.isArray()) {
            throw wrongType(name, "an array of strings", value);
        }
        List<String> result = new ArrayList<>();
        int index = 0;
        for (JsonNode element : value) {
            if (!element.isString()) {
                throw new ApiException(Problem.BAD_TYPE, "field '" + prefix + name + "[" + index + "]' must be a"
                        + " string, was " + kind(element));
            }
            result.add(element.stringValue());
            index++;
        }
        return result;
    }

    /** The elements of a required array field. */
    public List<JsonNode> requireArray(String name, String what) {
        JsonNode value = require(name, what);
        if (!value.isArray()) {
            throw wrongType(name, "an array", value);
        }
        List<JsonNode> result = new ArrayList<>();
        value.forEach(result::add);
        return result;
    }

    /** How a field is named in messages, with the prefix of the object it is in. */
    public String field(String name) {
        return prefix + name;
    }

    private @Nullable String text(String name, String what) {
        JsonNode value = value(name);
        if (value == null) {
            return null;
        }
        if (!value.isString()) {
            throw wrongType(name, what, value);
        }
        return value.stringValue();
    }

    private ApiException missing(String name, String what) {
        return new ApiException(Problem.MALFORMED_BODY, "field '" + prefix + name + "' is required: " + what);
    }

    private ApiException wrongType(String name, String expected, JsonNode value) {
        return new ApiException(Problem.BAD_TYPE, "field '" + prefix + name + "' must be " + expected + ", was "
                + kind(value));
    }

    /** {@code a string}, {@code a number}, {@code an object}, ... */
    static String kind(@Nullable JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "missing";
        }
        String type = value.getNodeType().name().toLowerCase(Locale.ROOT);
        return (type.startsWith("o") || type.startsWith("a") ? "an " : "a ") + type;
    }
}
