package dev.rmq.server.api.message;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.server.api.JsonBody;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Reads one message to send from its JSON, checking what rmq would refuse in a way the API can name: a field
 * that belongs to another type of topic ({@code bad-type}), a reserved priority ({@code bad-priority}), a missing
 * due time or priority ({@code malformed-body}). What remains for rmq to check (key length, header names) is
 * refused with rmq's own message.
 */
final class MessageRequests {

    static final List<String> FIELDS = List.of("payload", "key", "slotBasis", "headers", "ttl", "timeRange", "delay",
            "priority", "dueTime", "notBefore", "repeatedKey", "throttleWindow");

    private MessageRequests() {
    }

    static OutgoingMessage parse(TopicDefinition topic, JsonBody body) {
        body.allowOnly(FIELDS);
        JsonNode payload = body.require("payload", "the message itself, any JSON value but null");
        OutgoingMessage message = switch (topic.type()) {
            case RANGE_MERGE -> rangeMerge(topic, body, payload);
            case PRIORITY -> priority(topic, body, payload);
            case FIXED_TIME -> fixedTime(topic, body, payload);
        };
        String key = body.string("key");
        if (key != null) {
            message = message.withKey(key);
        }
        String slotBasis = body.string("slotBasis");
        if (slotBasis != null) {
            message = message.withSlotBasis(slotBasis);
        }
        Map<String, String> headers = body.stringMap("headers");
        if (headers != null) {
            message = message.withHeaders(headers);
        }
        Duration ttl = body.duration("ttl");
        if (ttl != null) {
            message = message.withTtl(ttl);
        }
        RepeatedKey repeated = repeatedKey(topic, body);
        return repeated == null ? message : message.withRepeatedKey(repeated);
    }

    /** The send's own rule for a repeated key, or null for the topic's. */
    private static @Nullable RepeatedKey repeatedKey(TopicDefinition topic, JsonBody body) {
        String kind = body.string("repeatedKey");
        Duration window = body.duration("throttleWindow");
        if (kind == null) {
            if (window != null) {
                throw new ApiException(Problem.INVALID_ARGUMENT, "field '" + body.field("throttleWindow") + "' is for"
                        + " repeatedKey THROTTLE, and '" + body.field("repeatedKey") + "' is not given");
            }
            return null;
        }
        RepeatedKey.Kind parsed;
        try {
            parsed = RepeatedKey.Kind.valueOf(kind);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field '" + body.field("repeatedKey") + "' must be one of "
                    + Arrays.toString(RepeatedKey.Kind.values()) + ", was '" + kind + "'", e);
        }
        try {
            return RepeatedKey.of(parsed, window).checkFor(topic.name(), topic.type());
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.INVALID_ARGUMENT, e.getMessage(), e);
        }
    }

    private static OutgoingMessage rangeMerge(TopicDefinition topic, JsonBody body, JsonNode payload) {
        refuse(topic, body, "priority", "dueTime", "notBefore");
        Duration range = body.duration("timeRange");
        Duration delay = body.duration("delay");
        if (range != null && delay != null) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "give '" + body.field("timeRange") + "' or '"
                    + body.field("delay") + "', not both: on a RANGE_MERGE topic they mean the same");
        }
        String field = body.field(range != null ? "timeRange" : "delay");
        Duration window = range != null ? range : delay;
        if (window == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field '" + body.field("timeRange") + "' is required on"
                    + " RANGE_MERGE topic '" + topic.name() + "': the message is due that long after its first send,"
                    + " and sends of its key until then merge into it; an ISO-8601 duration such as PT5S");
        }
        return OutgoingMessage.rangeMerge(topic.name(), payload, positive(field, window));
    }

    private static OutgoingMessage priority(TopicDefinition topic, JsonBody body, JsonNode payload) {
        refuse(topic, body, "timeRange", "dueTime");
        Long priority = body.integer("priority");
        if (priority == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field '" + body.field("priority") + "' is required on"
                    + " PRIORITY topic '" + topic.name() + "': an integer from " + (OutgoingMessage.RESERVED_PRIORITY_MAX
                    + 1) + " up, the highest consumed first");
        }
        OutgoingMessage message = OutgoingMessage.priority(topic.name(), payload,
                checkPriority(body.field("priority"), priority));
        Duration delay = body.duration("delay");
        Instant notBefore = body.instant("notBefore");
        if (delay != null && notBefore != null) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "give '" + body.field("delay") + "' or '"
                    + body.field("notBefore") + "', not both: each says when the message becomes visible");
        }
        if (delay != null) {
            message = message.withDelay(positive(body.field("delay"), delay));
        }
        if (notBefore != null) {
            message = message.notBefore(notBefore);
        }
        return message;
    }

    private static OutgoingMessage fixedTime(TopicDefinition topic, JsonBody body, JsonNode payload) {
        refuse(topic, body, "timeRange", "delay", "priority", "notBefore");
        Instant due = body.instant("dueTime");
        if (due == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field '" + body.field("dueTime") + "' is required on"
                    + " FIXED_TIME topic '" + topic.name() + "': the instant the message is due, such as"
                    + " 2030-01-01T12:00:00Z");
        }
        return OutgoingMessage.fixedTime(topic.name(), payload, due);
    }

    /** A priority rmq accepts, or {@code bad-priority}. */
    static long checkPriority(String field, long priority) {
        if (priority <= OutgoingMessage.RESERVED_PRIORITY_MAX || priority > OutgoingMessage.MAX_PRIORITY) {
            throw new ApiException(Problem.BAD_PRIORITY, "field '" + field + "' must be in "
                    + (OutgoingMessage.RESERVED_PRIORITY_MAX + 1) + ".." + OutgoingMessage.MAX_PRIORITY + ": rmq"
                    + " reserves priorities up to " + OutgoingMessage.RESERVED_PRIORITY_MAX + ", and larger ones are"
                    + " not exact in Redis; was " + priority);
        }
        return priority;
    }

    private static Duration positive(String field, Duration value) {
        if (value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field '" + field + "' must be at least 1 ms (PT0.001S),"
                    + " was " + value);
        }
        return value;
    }

    /** Refuses the fields that belong to other types of topic, saying what this type takes instead. */
    private static void refuse(TopicDefinition topic, JsonBody body, String... fields) {
        for (String field : fields) {
            if (body.has(field)) {
                throw new ApiException(Problem.BAD_TYPE, "field '" + body.field(field) + "' does not apply to topic '"
                        + topic.name() + "', a " + topic.type() + " topic whose messages take " + takes(topic.type())
                        + "; " + field + " is for " + owner(field) + " topics");
            }
        }
    }

    static String takes(TopicType type) {
        return switch (type) {
            case RANGE_MERGE -> "timeRange (an ISO-8601 duration such as PT5S)";
            case PRIORITY -> "priority (an integer above " + OutgoingMessage.RESERVED_PRIORITY_MAX + "), and may take"
                    + " delay or notBefore";
            case FIXED_TIME -> "dueTime (an ISO-8601 instant such as 2030-01-01T12:00:00Z)";
        };
    }

    private static String owner(String field) {
        return switch (field) {
            case "priority", "notBefore" -> "PRIORITY";
            case "dueTime" -> "FIXED_TIME";
            case "timeRange" -> "RANGE_MERGE";
            default -> "RANGE_MERGE and PRIORITY";
        };
    }
}
