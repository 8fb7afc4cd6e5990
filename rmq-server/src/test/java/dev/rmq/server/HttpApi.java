package dev.rmq.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Calls the running server over real HTTP, as any client would, and reads its JSON answers. */
final class HttpApi {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String PROBLEMS = "https://rmq.dev/problems/";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;
    private final String key;

    HttpApi(int port) {
        this(port, null);
    }

    HttpApi(int port, String key) {
        this.base = "http://127.0.0.1:" + port;
        this.key = key;
    }

    /** The same server, called with another API key (or none). */
    HttpApi withKey(String apiKey) {
        return new HttpApi(Integer.parseInt(base.substring(base.lastIndexOf(':') + 1)), apiKey);
    }

    String base() {
        return base;
    }

    /** An answer: its status, headers and body, and the body as JSON when it is JSON. */
    record Reply(int status, String contentType, java.net.http.HttpHeaders headers, String body) {

        JsonNode json() {
            return JSON.readTree(body);
        }

        /** The JSON body of an answer that must have this status. */
        JsonNode expect(int expected) {
            assertThat(status).as("status of an answer whose body is %s", body).isEqualTo(expected);
            return json();
        }

        /** Checks that the answer is a problem of this type, with the status the type has, and returns it. */
        JsonNode problem(String type, int expectedStatus) {
            assertThat(contentType).as("content type of %s", body).startsWith("application/problem+json");
            JsonNode problem = json();
            assertThat(problem.path("type").asString()).as("problem %s", body).isEqualTo(PROBLEMS + type);
            assertThat(status).as("status of problem %s", body).isEqualTo(expectedStatus);
            assertThat(problem.path("status").asInt()).isEqualTo(expectedStatus);
            assertThat(problem.path("title").asString()).isNotBlank();
            assertThat(problem.path("detail").asString()).isNotBlank();
            return problem;
        }
    }

    Reply get(String path) {
        return send("GET", path, null, null);
    }

    Reply delete(String path) {
        return send("DELETE", path, null, null);
    }

    Reply post(String path) {
        return send("POST", path, null, null);
    }

    Reply post(String path, String json) {
        return send("POST", path, json, "application/json");
    }

    Reply send(String method, String path, String body, String contentType) {
        return send(method, path, body, contentType, Duration.ofSeconds(60));
    }

    Reply send(String method, String path, String body, String contentType, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        try {
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    /** JSON text of a map or list, for request bodies. */
    static String json(Object value) {
        return JSON.writeValueAsString(value);
    }

    /** Sends one message; the answer must be 201. */
    JsonNode send(String topic, Map<String, Object> message) {
        return post("/api/v1/topics/" + topic + "/messages", json(message)).expect(201);
    }

    /** Pulls up to {@code count} messages of one topic, waiting up to {@code timeout}. */
    List<JsonNode> pull(String topic, int count, String timeout) {
        JsonNode answer = post("/api/v1/pull", json(Map.of("topics", List.of(topic), "count", count,
                "timeout", timeout))).expect(200);
        List<JsonNode> deliveries = new ArrayList<>();
        answer.path("deliveries").forEach(deliveries::add);
        return deliveries;
    }

    /**
     * Pulls until a delivery of this key comes and returns it, unsettled. Any other delivery of the topic met on the
     * way is acknowledged, so that it does not hold its slot.
     */
    JsonNode pullKey(String topic, String messageKey) {
        return pullMatching(topic, delivery -> delivery.path("key").asString().equals(messageKey));
    }

    JsonNode pullMatching(String topic, Predicate<JsonNode> wanted) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
            for (JsonNode delivery : pull(topic, 10, "PT2S")) {
                if (found[0] == null && wanted.test(delivery)) {
                    found[0] = delivery;
                } else {
                    ack(delivery);
                }
            }
            return found[0] != null;
        });
        return found[0];
    }

    JsonNode ack(JsonNode delivery) {
        return post("/api/v1/deliveries/" + delivery.path("token").asString() + "/ack").expect(200);
    }

    /** Waits until the server's puller holds every slot of these topics, as it does once ZooKeeper assigned them. */
    void awaitPullerHoldsAllSlots(Set<String> topics) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            JsonNode listed = get("/api/v1/topics").expect(200);
            for (JsonNode topic : listed.path("topics")) {
                if (topics.contains(topic.path("name").asString())) {
                    assertThat(topic.path("pulledSlots").asInt()).as("slots of %s the puller holds", topic)
                            .isEqualTo(topic.path("slotAmount").asInt());
                }
            }
        });
    }
}
