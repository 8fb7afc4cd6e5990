package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With API keys configured: no key or an unknown one is 401, a read-only key may only read, read-write may all; the
 * web console takes the key as a browser's Basic password.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.port=0",
        "server.address=127.0.0.1",
        "rmq.server.api-keys[0].name=dashboard",
        "rmq.server.api-keys[0].key=" + ApiKeyTests.READ_ONLY,
        "rmq.server.api-keys[0].scope=read-only",
        "rmq.server.api-keys[1].name=orders-service",
        "rmq.server.api-keys[1].key=" + ApiKeyTests.READ_WRITE,
        "rmq.server.api-keys[1].scope=read-write"
})
class ApiKeyTests {

    static final String READ_ONLY = "ro-3b1f8e2a9c7d4f60a5e1";
    static final String READ_WRITE = "rw-9d2c4b7e1a0f4e38b6c2";

    @Value("${local.server.port}")
    int port;

    HttpApi anonymous;

    @BeforeEach
    void client() {
        anonymous = new HttpApi(port);
    }

    @Test
    void aRequestWithoutAKeyIsUnauthorized() {
        HttpApi.Reply reply = anonymous.get("/api/v1/topics");

        JsonNode problem = reply.problem("unauthorized", 401);
        assertThat(problem.path("detail").asString()).contains("Authorization: Bearer");
        assertThat(reply.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(value ->
                assertThat(value).startsWith("Bearer"));
        anonymous.post("/api/v1/pull", "{}").problem("unauthorized", 401);
        anonymous.get("/actuator/metrics").problem("unauthorized", 401);
    }

    @Test
    void anUnknownKeyIsUnauthorized() {
        anonymous.withKey("not-a-key-of-this-server-at-all").get("/api/v1/topics").problem("unauthorized", 401);
        anonymous.withKey(READ_WRITE + "x").get("/api/v1/topics").problem("unauthorized", 401);
    }

    @Test
    void aReadOnlyKeyMayReadButNotChangeAnything() {
        HttpApi reader = anonymous.withKey(READ_ONLY);

        assertThat(reader.get("/api/v1/topics").expect(200).path("topics").size()).isEqualTo(3);
        reader.get("/api/v1/topics/orders-timeout/counts").expect(200);
        reader.get("/api/v1/openapi.json").expect(200);
        JsonNode problem = reader.post("/api/v1/topics/orders-timeout/messages", HttpApi.json(Map.of(
                "payload", "x", "dueTime", "2030-01-01T00:00:00Z"))).problem("forbidden", 403);
        assertThat(problem.path("detail").asString()).contains("dashboard", "read-only");
        reader.post("/api/v1/pull", "{}").problem("forbidden", 403);
        reader.delete("/api/v1/topics/merchant-tasks/dead").problem("forbidden", 403);
    }

    @Test
    void aReadWriteKeyMaySendAndPull() {
        HttpApi writer = anonymous.withKey(READ_WRITE);
        String due = Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.MILLIS).toString();

        writer.send("orders-timeout", Map.of("payload", "x", "key", "keyed-1", "dueTime", due));

        assertThat(writer.get("/api/v1/topics/orders-timeout/messages/keyed-1").expect(200).path("dueTime").asString())
                .isEqualTo(due);
        writer.post("/api/v1/pull", "{\"topics\":[\"merchant-tasks\"]}").expect(200);
        writer.delete("/api/v1/topics/orders-timeout/messages/keyed-1").expect(200);
    }

    @Test
    void healthIsOpenWithoutAKey() {
        JsonNode health = anonymous.get("/actuator/health").expect(200);

        assertThat(health.path("status").asString()).isEqualTo("UP");
    }

    /** A browser's request to the console: the key as the Basic password, the console's own headers on a write. */
    private HttpResponse<String> console(String method, String page, String key) throws Exception {
        return console(method, page, key, "pause");
    }

    private HttpResponse<String> console(String method, String page, String key, String action) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(anonymous.base() + "/rmq/" + page));
        if (key != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("anyone:" + key)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        if (method.equals("POST")) {
            request.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"" + action
                            + "\",\"topic\":\"merchant-tasks\"}"))
                    .header("Content-Type", "application/json").header("X-Rmq-Console", "1")
                    .header("Sec-Fetch-Site", "same-origin");
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theConsoleAsksABrowserForAKeyAndAReadOnlyKeySeesNoControl(CapturedOutput output) throws Exception {
        HttpResponse<String> challenged = console("GET", "", null);
        assertThat(challenged.statusCode()).isEqualTo(401);
        assertThat(challenged.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(value ->
                assertThat(value).startsWith("Basic realm=\"rmq console\""));
        assertThat(console("GET", "", "not-a-key").statusCode()).isEqualTo(401);

        HttpResponse<String> reader = console("GET", "topics/merchant-tasks", READ_ONLY);
        assertThat(reader.statusCode()).isEqualTo(200);
        assertThat(reader.body()).contains("read-only").doesNotContain("data-action");
        assertThat(console("POST", "actions", READ_ONLY).statusCode()).isEqualTo(403);

        HttpResponse<String> writer = console("GET", "topics/merchant-tasks", READ_WRITE);
        assertThat(writer.body()).contains("data-action=\"pause\"").doesNotContain("read-only");
        assertThat(console("POST", "actions", READ_WRITE).statusCode()).isEqualTo(200);
        assertThat(output).contains("orders-service asked to pause merchant-tasks: the topic is paused");
        assertThat(console("POST", "actions", READ_WRITE, "resume").body()).contains("running");
    }
}
