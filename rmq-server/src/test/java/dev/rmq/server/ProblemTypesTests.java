package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every problem the API answers with, by its type: each test makes the server refuse something and checks the
 * type, the status and that the detail says what was wrong. The API key problems are in {@link ApiKeyTests}, Redis
 * out of reach in {@link UnavailableTests}.
 */
@ServerTest
class ProblemTypesTests {

    @Value("${local.server.port}")
    int port;

    HttpApi api;

    @BeforeEach
    void client() {
        api = new HttpApi(port);
    }

    @Test
    void unknownTopic() {
        JsonNode problem = api.post("/api/v1/topics/no-such-topic/messages",
                HttpApi.json(Map.of("payload", "x", "priority", 20))).problem("unknown-topic", 404);

        assertThat(problem.path("detail").asString()).contains("no-such-topic", "orders-timeout");
        assertThat(problem.path("topic").asString()).isEqualTo("no-such-topic");
        assertThat(problem.path("instance").asString()).isEqualTo("/api/v1/topics/no-such-topic/messages");
        api.get("/api/v1/topics/no-such-topic/counts").problem("unknown-topic", 404);
        api.post("/api/v1/pull", HttpApi.json(Map.of("topics", List.of("no-such-topic")))).problem("unknown-topic", 404);
    }

    @Test
    void badTypeForAFieldOfAnotherKindOfTopic() {
        JsonNode problem = api.post("/api/v1/topics/t-fixed/messages",
                HttpApi.json(Map.of("payload", "x", "priority", 100))).problem("bad-type", 400);

        assertThat(problem.path("detail").asString()).contains("priority", "FIXED_TIME", "dueTime");
        api.post("/api/v1/topics/t-priority/messages", HttpApi.json(Map.of("payload", "x", "priority", 20,
                "dueTime", "2030-01-01T00:00:00Z"))).problem("bad-type", 400);
        api.post("/api/v1/topics/t-priority/messages/any/reschedule",
                HttpApi.json(Map.of("dueTime", "2030-01-01T00:00:00Z"))).problem("bad-type", 400);
    }

    @Test
    void badTypeForAFieldOfTheWrongJsonType() {
        JsonNode problem = api.post("/api/v1/topics/t-priority/messages",
                HttpApi.json(Map.of("payload", "x", "priority", "high"))).problem("bad-type", 400);

        assertThat(problem.path("detail").asString()).contains("'priority'", "integer", "string");
        api.post("/api/v1/topics/t-fixed/messages", HttpApi.json(Map.of("payload", "x",
                "dueTime", "tomorrow"))).problem("bad-type", 400);
        api.post("/api/v1/topics/t-priority/messages", HttpApi.json(Map.of("payload", "x", "priority", 20,
                "headers", Map.of("retries", 3)))).problem("bad-type", 400);
        api.post("/api/v1/pull", HttpApi.json(Map.of("count", "ten"))).problem("bad-type", 400);
        api.get("/api/v1/topics/t-inspect/peek?count=many").problem("bad-type", 400);
    }

    @Test
    void badPriority() {
        JsonNode problem = api.post("/api/v1/topics/t-priority/messages",
                HttpApi.json(Map.of("payload", "x", "priority", 16))).problem("bad-priority", 400);

        assertThat(problem.path("detail").asString()).contains("17", "reserve", "16");
        api.post("/api/v1/topics/t-priority/messages/any/reschedule", HttpApi.json(Map.of("priority", 3)))
                .problem("bad-priority", 400);
    }

    @Test
    void timeInPast() {
        Instant hourAgo = Instant.now().minus(Duration.ofHours(1));

        JsonNode problem = api.post("/api/v1/topics/t-fixed/messages", HttpApi.json(Map.of("payload", "x",
                "key", "too-late", "dueTime", hourAgo.toString()))).problem("time-in-past", 400);

        String asked = hourAgo.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString();
        assertThat(problem.path("detail").asString()).as("the request's field, and instants in ISO-8601")
                .contains("field 'dueTime' (" + asked + ")", "late tolerance", "nothing was sent")
                .doesNotContain("fixedTime", " ms");
        api.get("/api/v1/topics/t-fixed/messages/too-late").problem("not-found", 404);
        api.send("t-fixed", Map.of("payload", "x", "key", "moved-late",
                "dueTime", Instant.now().plus(Duration.ofHours(1)).toString()));
        JsonNode moved = api.post("/api/v1/topics/t-fixed/messages/moved-late/reschedule",
                HttpApi.json(Map.of("dueTime", hourAgo.toString()))).problem("time-in-past", 400);
        assertThat(moved.path("detail").asString()).contains("field 'dueTime' (" + asked + ")", "nothing was changed")
                .doesNotContain("fixedTime");
    }

    @Test
    void payloadTooLarge() {
        // the test server allows 64 KB per message
        JsonNode problem = api.post("/api/v1/topics/t-priority/messages",
                HttpApi.json(Map.of("payload", "x".repeat(70_000), "priority", 20))).problem("payload-too-large", 413);

        assertThat(problem.path("detail").asString()).as("the server's setting, not the Java client's")
                .contains("65536 bytes", "rmq.max-payload-size").doesNotContain("RmqClient", "maxPayloadBytes");
        assertThat(problem.path("limit").asInt()).isEqualTo(65536);
    }

    @Test
    void malformedBody() {
        JsonNode cut = api.post("/api/v1/topics/t-priority/messages", "{\"payload\": ").problem("malformed-body", 400);
        assertThat(cut.path("detail").asString()).as("where in the body, without the parser's internals")
                .contains("line 1, column").doesNotContain("Source", "REDACTED", "StreamReadFeature", "#UNKNOWN");
        JsonNode wrong = api.post("/api/v1/topics/t-priority/messages", "{\"payload\": \"x\",\n \"priority\": 2x}")
                .problem("malformed-body", 400);
        assertThat(wrong.path("detail").asString()).contains("line 2").doesNotContain("Source", "REDACTED");
        api.post("/api/v1/topics/t-priority/messages").problem("malformed-body", 400);
        api.post("/api/v1/topics/t-priority/messages", "[1, 2]").problem("malformed-body", 400);
        JsonNode missing = api.post("/api/v1/topics/t-priority/messages", HttpApi.json(Map.of("priority", 20)))
                .problem("malformed-body", 400);
        assertThat(missing.path("detail").asString()).contains("'payload'", "required");
        JsonNode unknown = api.post("/api/v1/topics/t-priority/messages",
                HttpApi.json(Map.of("payload", "x", "priority", 20, "prioirty", 30))).problem("malformed-body", 400);
        assertThat(unknown.path("detail").asString()).contains("prioirty", "priority");
        api.post("/api/v1/topics/t-fixed/messages", HttpApi.json(Map.of("payload", "x")))
                .problem("malformed-body", 400);
        api.post("/api/v1/deliveries/any-token/retry").problem("malformed-body", 400);
    }

    @Test
    void invalidArgument() {
        JsonNode problem = api.post("/api/v1/pull", HttpApi.json(Map.of("count", 0))).problem("invalid-argument", 400);
        assertThat(problem.path("detail").asString()).contains("count", "10000");

        JsonNode key = api.post("/api/v1/topics/t-priority/messages", HttpApi.json(Map.of("payload", "x",
                "priority", 20, "key", "k".repeat(2000)))).problem("invalid-argument", 400);
        assertThat(key.path("detail").asString()).as("rmq's own message").contains("1024");
        api.post("/api/v1/pull", HttpApi.json(Map.of("timeout", "PT10M"))).problem("invalid-argument", 400);
        api.get("/api/v1/topics/t-inspect/peek?count=900&offset=200").problem("invalid-argument", 400);
        api.get("/api/v1/topics/t-inspect/peek?count=1001&order=first").problem("invalid-argument", 400);
    }

    @Test
    void leaseExpiredForATokenTheServerDoesNotHold() {
        JsonNode problem = api.post("/api/v1/deliveries/no-such-token/ack").problem("lease-expired", 410);

        assertThat(problem.path("detail").asString()).contains("token");
        api.post("/api/v1/deliveries/no-such-token/dead", HttpApi.json(Map.of("reason", "x")))
                .problem("lease-expired", 410);
        api.post("/api/v1/deliveries/no-such-token/extend", HttpApi.json(Map.of("duration", "PT1M")))
                .problem("lease-expired", 410);
        api.post("/api/v1/deliveries/no-such-token/progress", HttpApi.json(Map.of("percent", 10)))
                .problem("lease-expired", 410);
    }

    @Test
    void backlogFull() {
        // t-backlog holds at most one waiting message
        api.send("t-backlog", Map.of("payload", "first", "key", "cap-1", "priority", 20));

        HttpApi.Reply refused = api.post("/api/v1/topics/t-backlog/messages",
                HttpApi.json(Map.of("payload", "second", "key", "cap-2", "priority", 20)));

        refused.problem("backlog-full", 429);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(api.send("t-backlog", Map.of("payload", "again", "key", "cap-1", "priority", 30))
                .path("merged").asBoolean()).as("a send that merges is never refused").isTrue();
        api.delete("/api/v1/topics/t-backlog/messages/cap-1").expect(200);
    }

    @Test
    void notFound() {
        JsonNode problem = api.get("/api/v1/topics/t-priority/messages/never-sent").problem("not-found", 404);

        assertThat(problem.path("detail").asString()).contains("never-sent");
        api.get("/api/v1/no-such-endpoint").problem("not-found", 404);
        api.post("/api/v1/topics/t-dead/dead/never-dead/requeue").problem("not-found", 404);
    }

    @Test
    void journalDisabled() {
        JsonNode problem = api.post("/api/v1/restore").problem("journal-disabled", 409);

        assertThat(problem.path("detail").asString()).contains("journal");
    }

    @Test
    void methodNotAllowedAndUnsupportedMediaType() {
        api.send("PUT", "/api/v1/topics", "{}", "application/json").problem("method-not-allowed", 405);
        JsonNode form = api.send("POST", "/api/v1/topics/t-priority/messages", "payload=x",
                "application/x-www-form-urlencoded").problem("unsupported-media-type", 415);
        assertThat(form.path("detail").asString()).contains("Content-Type: application/json",
                "application/x-www-form-urlencoded");
    }
}
