package dev.rmq.server.api.problem;

import dev.rmq.exceptions.RmqException;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.journal.NoJournalException;
import dev.rmq.journal.jdbc.JournalUnavailableException;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.NotReplicatedException;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.schedule.UnknownScheduleException;
import dev.rmq.server.pull.PullerUnavailableException;
import dev.rmq.server.pull.UnknownDeliveryException;
import dev.rmq.topic.UnknownTopicException;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.net.URI;

/**
 * Turns every failure of a request into an RFC 9457 problem of one of the {@link Problem} types. rmq's own
 * exceptions map to their problems (an unknown topic, a full backlog, an expired lease, Redis out of reach or
 * replicas that did not confirm a durable send), its argument checks to {@code invalid-argument} with rmq's
 * message as the detail, and Spring MVC's errors (no such endpoint, wrong method, unreadable body) to theirs.
 */
@RestControllerAdvice
public final class ProblemAdvice {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);
    /** What a client should wait before trying again a request refused for want of room or of Redis. */
    private static final String RETRY_AFTER_SECONDS = "1";

    private final ProblemJson json;

    public ProblemAdvice(ProblemJson json) {
        this.json = json;
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<JsonNode> refused(ApiException e, HttpServletRequest request) {
        boolean later = e.problem() == Problem.BACKLOG_FULL || e.problem() == Problem.UNAVAILABLE;
        return answer(e.toProblemDetail(), request, later ? retryAfter() : new HttpHeaders());
    }

    @ExceptionHandler(UnknownTopicException.class)
    ResponseEntity<JsonNode> unknownTopic(UnknownTopicException e, HttpServletRequest request) {
        ProblemDetail problem = Problem.UNKNOWN_TOPIC.with(e.getMessage());
        problem.setProperty("topic", e.topic());
        return answer(problem, request, new HttpHeaders());
    }

    @ExceptionHandler(UnknownScheduleException.class)
    ResponseEntity<JsonNode> unknownSchedule(UnknownScheduleException e, HttpServletRequest request) {
        ProblemDetail problem = Problem.UNKNOWN_SCHEDULE.with(e.getMessage());
        problem.setProperty("schedule", e.schedule());
        return answer(problem, request, new HttpHeaders());
    }

    @ExceptionHandler(NoJournalException.class)
    ResponseEntity<JsonNode> noJournal(NoJournalException e, HttpServletRequest request) {
        return answer(Problem.JOURNAL_DISABLED.with("this server keeps no journal of its messages, so it has no"
                + " history of them: configure the database of the JDBC journal (spring.datasource.url, user name and"
                + " password) and restart it"), request, new HttpHeaders());
    }

    @ExceptionHandler(PayloadTooLargeException.class)
    ResponseEntity<JsonNode> tooLarge(PayloadTooLargeException e, HttpServletRequest request) {
        ProblemDetail problem = Problem.PAYLOAD_TOO_LARGE.with("the message to topic '" + e.topic() + "' is "
                + e.size() + " bytes with its headers, more than this server takes: at most " + e.limit()
                + " bytes, its setting rmq.max-payload-size; nothing was sent");
        problem.setProperty("limit", e.limit());
        return answer(problem, request, new HttpHeaders());
    }

    @ExceptionHandler(BacklogFullException.class)
    ResponseEntity<JsonNode> backlogFull(BacklogFullException e, HttpServletRequest request) {
        return answer(Problem.BACKLOG_FULL.with(e.getMessage()), request, retryAfter());
    }

    @ExceptionHandler(UnknownDeliveryException.class)
    ResponseEntity<JsonNode> unknownDelivery(UnknownDeliveryException e, HttpServletRequest request) {
        return answer(Problem.LEASE_EXPIRED.with(e.getMessage()), request, new HttpHeaders());
    }

    @ExceptionHandler(LeaseExpiredException.class)
    ResponseEntity<JsonNode> leaseExpired(LeaseExpiredException e, HttpServletRequest request) {
        return answer(Problem.LEASE_EXPIRED.with("message '" + e.key() + "' of topic '" + e.topic() + "' (attempt "
                + e.attempt() + ") was not settled: " + e.reason() + "; nothing was done, and it will be delivered"
                + " again. A lease lasts " + e.lease() + " from the pull; POST /api/v1/deliveries/{token}/extend"
                + " lengthens it while it runs"), request, new HttpHeaders());
    }

    /** The journal's database is away or slow: for a send, Redis holds the message, without its journal row. */
    @ExceptionHandler({RmqUnavailableException.class, PullerUnavailableException.class, NotReplicatedException.class,
            JournalUnavailableException.class})
    ResponseEntity<JsonNode> unavailable(RuntimeException e, HttpServletRequest request) {
        log.warn("{} {} failed: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
        return answer(Problem.UNAVAILABLE.with(e.getMessage()), request, retryAfter());
    }

    /** rmq checks its arguments before anything reaches Redis, with messages that say what is allowed. */
    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<JsonNode> invalidArgument(IllegalArgumentException e, HttpServletRequest request) {
        return answer(Problem.INVALID_ARGUMENT.with(e.getMessage()), request, new HttpHeaders());
    }

    /** A body that is not JSON, told in the request's own terms: where in the body, and what was wrong there. */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<JsonNode> unreadable(HttpMessageNotReadableException e, HttpServletRequest request) {
        String detail;
        if (e.getCause() instanceof JacksonException jackson) {
            detail = "the body is not valid JSON" + where(jackson) + ": " + firstLine(jackson.getOriginalMessage())
                    + "; send a JSON object with Content-Type: application/json";
        } else if (e.getMessage() != null && e.getMessage().startsWith("Required request body is missing")) {
            detail = "the request needs a JSON body; send one with Content-Type: application/json";
        } else {
            detail = "the body could not be read as JSON; send a JSON object with Content-Type: application/json";
        }
        return answer(Problem.MALFORMED_BODY.with(detail), request, new HttpHeaders());
    }

    /** Where in the body the parser stopped: line and column, and the field it was in when it knows one. */
    private static String where(JacksonException e) {
        StringBuilder where = new StringBuilder();
        if (e.getLocation() != null && e.getLocation().getLineNr() > 0) {
            where.append(" at line ").append(e.getLocation().getLineNr()).append(", column ")
                    .append(e.getLocation().getColumnNr());
        }
        String path = e.getPathReference();
        if (path != null && !path.isBlank() && !e.getPath().isEmpty()) {
            where.append(where.isEmpty() ? " in " : " (in ").append(path).append(where.isEmpty() ? "" : ")");
        }
        return where.toString();
    }

    /** The parser's own words, without the location and source notes it appends for Java developers. */
    private static String firstLine(@Nullable String message) {
        if (message == null) {
            return "unreadable";
        }
        String line = message.lines().findFirst().orElse("").trim();
        int source = line.indexOf("[Source:");
        return (source >= 0 ? line.substring(0, source) : line).trim();
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<JsonNode> typeMismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
        Class<?> required = e.getRequiredType();
        String wanted = required == null ? "another kind of value"
                : required == boolean.class || required == Boolean.class ? "true or false"
                : required == int.class || required == Integer.class || required == long.class
                || required == Long.class ? "an integer" : "a " + required.getSimpleName();
        return answer(Problem.BAD_TYPE.with("parameter '" + e.getName() + "' must be " + wanted + ", was '"
                + e.getValue() + "'"), request, new HttpHeaders());
    }

    /** Spring MVC's own errors carry their status; anything else is a failure of the server. */
    @ExceptionHandler(Exception.class)
    ResponseEntity<JsonNode> other(Exception e, HttpServletRequest request) {
        if (e instanceof ErrorResponse error) {
            Problem problem = Problem.forStatus(error.getStatusCode().value());
            String detail = error.getBody().getDetail();
            if (problem == Problem.NOT_FOUND) {
                detail = "no endpoint " + request.getMethod() + " " + request.getRequestURI()
                        + "; the API is described at /api/v1/openapi.json";
            } else if (problem == Problem.UNSUPPORTED_MEDIA_TYPE) {
                String sent = request.getContentType();
                detail = "this endpoint takes a JSON body with Content-Type: application/json; the request's was "
                        + (sent == null ? "missing" : "'" + sent + "'") + " (curl -d sends"
                        + " application/x-www-form-urlencoded: add -H 'Content-Type: application/json')";
            }
            ProblemDetail body = problem.with(detail);
            body.setStatus(error.getStatusCode().value());
            // such as Allow, for a method the endpoint does not take
            return answer(body, request, error.getHeaders());
        }
        if (e instanceof RmqException) {
            log.error("{} {} failed", request.getMethod(), request.getRequestURI(), e);
            return answer(Problem.INTERNAL_ERROR.with(e.getMessage()), request, new HttpHeaders());
        }
        log.error("{} {} failed", request.getMethod(), request.getRequestURI(), e);
        return answer(Problem.INTERNAL_ERROR.with("the server failed to handle the request ("
                + e.getClass().getSimpleName() + "); its log has the details"), request, new HttpHeaders());
    }

    private ResponseEntity<JsonNode> answer(ProblemDetail problem, HttpServletRequest request, HttpHeaders headers) {
        try {
            problem.setInstance(URI.create(request.getRequestURI()));
        } catch (IllegalArgumentException e) {
            // a path that is no valid URI reference: the problem is answered without its instance
        }
        return json.response(problem, headers);
    }

    private static HttpHeaders retryAfter() {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        return headers;
    }
}
