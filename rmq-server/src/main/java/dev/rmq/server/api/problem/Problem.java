package dev.rmq.server.api.problem;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import java.net.URI;

/**
 * Every kind of error the API answers with, as RFC 9457 problem details: a stable {@code type} URI that clients
 * can switch on ({@value #TYPE_BASE}{@code <name>}), its HTTP status, and a short title. The detail of each answer
 * says what was wrong and what is allowed.
 */
public enum Problem {

    UNKNOWN_TOPIC("unknown-topic", HttpStatus.NOT_FOUND, "Unknown topic"),
    UNKNOWN_SCHEDULE("unknown-schedule", HttpStatus.NOT_FOUND, "Unknown schedule"),
    BAD_TYPE("bad-type", HttpStatus.BAD_REQUEST, "Wrong kind of value"),
    BAD_PRIORITY("bad-priority", HttpStatus.BAD_REQUEST, "Priority out of range"),
    TIME_IN_PAST("time-in-past", HttpStatus.BAD_REQUEST, "Time too far in the past"),
    PAYLOAD_TOO_LARGE("payload-too-large", HttpStatus.PAYLOAD_TOO_LARGE, "Message too large"),
    MALFORMED_BODY("malformed-body", HttpStatus.BAD_REQUEST, "Malformed request body"),
    INVALID_ARGUMENT("invalid-argument", HttpStatus.BAD_REQUEST, "Invalid argument"),
    LEASE_EXPIRED("lease-expired", HttpStatus.GONE, "Delivery no longer held"),
    BACKLOG_FULL("backlog-full", HttpStatus.TOO_MANY_REQUESTS, "Backlog full"),
    NOT_FOUND("not-found", HttpStatus.NOT_FOUND, "Not found"),
    METHOD_NOT_ALLOWED("method-not-allowed", HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
    NOT_ACCEPTABLE("not-acceptable", HttpStatus.NOT_ACCEPTABLE, "Not acceptable"),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
    UNAUTHORIZED("unauthorized", HttpStatus.UNAUTHORIZED, "API key required"),
    FORBIDDEN("forbidden", HttpStatus.FORBIDDEN, "API key not allowed to do this"),
    JOURNAL_DISABLED("journal-disabled", HttpStatus.CONFLICT, "No journal configured"),
    UNAVAILABLE("unavailable", HttpStatus.SERVICE_UNAVAILABLE, "Redis unavailable"),
    INTERNAL_ERROR("internal-error", HttpStatus.INTERNAL_SERVER_ERROR, "Internal error");

    /** Where every problem type lives; a type is this followed by its name. */
    public static final String TYPE_BASE = "https://rmq.dev/problems/";

    private final String typeName;
    private final HttpStatus status;
    private final String title;

    Problem(String typeName, HttpStatus status, String title) {
        this.typeName = typeName;
        this.status = status;
        this.title = title;
    }

    /** The last part of the type, as in {@code unknown-topic}. */
    public String typeName() {
        return typeName;
    }

    public URI type() {
        return URI.create(TYPE_BASE + typeName);
    }

    public HttpStatus status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** A problem detail of this type. */
    public ProblemDetail with(@Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(type());
        problem.setTitle(title);
        return problem;
    }

    /** The type for an HTTP error Spring MVC raised itself, before any handler ran. */
    public static Problem forStatus(int status) {
        return switch (status) {
            case 400 -> INVALID_ARGUMENT;
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 503 -> UNAVAILABLE;
            default -> INTERNAL_ERROR;
        };
    }
}
