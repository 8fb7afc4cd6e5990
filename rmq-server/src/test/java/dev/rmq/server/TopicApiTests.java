package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The topics, their counts and next messages, pause and resume, and the dead queue. */
@ServerTest
class TopicApiTests {

    @Value("${local.server.port}")
    int port;

    HttpApi api;

    @BeforeEach
    void client() {
        api = new HttpApi(port);
        api.awaitPullerHoldsAllSlots(Set.of("t-dead", "t-pause", "t-pull"));
    }

    @Test
    void listsEveryConfiguredTopicWithItsDefinition() {
        JsonNode topics = api.get("/api/v1/topics").expect(200).path("topics");

        Map<String, JsonNode> byName = new HashMap<>();
        topics.forEach(topic -> byName.put(topic.path("name").asString(), topic));
        assertThat(byName).containsKeys("price-change", "merchant-tasks", "orders-timeout", "t-pull", "t-backlog");
        assertThat(byName.get("price-change").path("type").asString()).isEqualTo("RANGE_MERGE");
        assertThat(byName.get("merchant-tasks").path("type").asString()).isEqualTo("PRIORITY");
        assertThat(byName.get("orders-timeout").path("type").asString()).isEqualTo("FIXED_TIME");
        assertThat(byName.get("orders-timeout").path("lateTolerance").asString()).isEqualTo("PT10S");
        JsonNode pull = byName.get("t-pull");
        assertThat(pull.path("slotAmount").asInt()).isEqualTo(4);
        assertThat(pull.path("maxRetries").asInt()).isEqualTo(5);
        assertThat(pull.path("leaseTimeout").asString()).isEqualTo("PT30S");
        assertThat(pull.path("backoff").path("initial").asString()).isEqualTo("PT0.1S");
        assertThat(byName.get("t-backlog").path("maxBacklog").asInt()).isEqualTo(1);
        assertThat(pull.path("pulledSlots").asInt()).isEqualTo(4);
    }

    @Test
    void showsOneTopic() {
        JsonNode topic = api.get("/api/v1/topics/t-inspect").expect(200);

        assertThat(topic.path("name").asString()).isEqualTo("t-inspect");
        assertThat(topic.path("type").asString()).isEqualTo("PRIORITY");
        assertThat(topic.has("lateTolerance")).as("a fixed-time control, absent on a priority topic").isFalse();
    }

    @Test
    void countsAndPeeksTheWaitingMessagesInConsumeOrder() {
        api.send("t-inspect", Map.of("payload", "low", "key", "low", "priority", 20));
        api.send("t-inspect", Map.of("payload", "high", "key", "high", "priority", 40));
        api.send("t-inspect", Map.of("payload", "middle", "key", "middle", "priority", 30));

        JsonNode counts = api.get("/api/v1/topics/t-inspect/counts").expect(200);
        assertThat(counts.path("state").asString()).isEqualTo("running");
        assertThat(counts.path("total").path("waiting").asLong()).isEqualTo(3);
        assertThat(counts.path("total").path("dueNow").asLong()).isEqualTo(3);
        assertThat(counts.path("total").path("inFlight").asLong()).isZero();
        assertThat(counts.path("slots").size()).isEqualTo(2);
        assertThat(counts.path("slots").get(1).path("slot").asInt()).isEqualTo(1);

        JsonNode peek = api.get("/api/v1/topics/t-inspect/peek?count=2").expect(200);
        List<String> keys = new ArrayList<>();
        peek.path("messages").forEach(message -> keys.add(message.path("key").asString()));
        assertThat(keys).containsExactly("high", "middle");
        assertThat(peek.path("messages").get(0).path("priority").asLong()).isEqualTo(40);

        JsonNode rest = api.get("/api/v1/topics/t-inspect/peek?count=5&offset=2").expect(200);
        assertThat(rest.path("messages").size()).isEqualTo(1);
        assertThat(rest.path("messages").get(0).path("key").asString()).isEqualTo("low");
        assertThat(rest.has("next")).as("a page by offset past the first gives no cursor").isFalse();

        // by cursor: the first page's next goes on where it ended, and the last page has none
        String next = peek.path("next").asString();
        JsonNode onward = api.get("/api/v1/topics/t-inspect/peek?count=2&cursor=" + next).expect(200);
        assertThat(onward.path("messages").size()).isEqualTo(1);
        assertThat(onward.path("messages").get(0).path("key").asString()).isEqualTo("low");
        assertThat(onward.has("next")).isFalse();
        assertThat(onward.has("offset")).isFalse();
        JsonNode newest = api.get("/api/v1/topics/t-inspect/peek?count=3&order=newest").expect(200);
        List<String> reversed = new ArrayList<>();
        newest.path("messages").forEach(message -> reversed.add(message.path("key").asString()));
        assertThat(reversed).containsExactly("low", "middle", "high");

        api.get("/api/v1/topics/t-inspect/peek?cursor=" + next + "&offset=1").problem("invalid-argument", 400);
        api.get("/api/v1/topics/t-inspect/peek?cursor=" + next + "&order=newest").problem("invalid-argument", 400);
        api.get("/api/v1/topics/t-inspect/peek?order=oldest").problem("invalid-argument", 400);
        JsonNode forged = api.get("/api/v1/topics/t-inspect/peek?cursor=forged").problem("invalid-argument", 400);
        assertThat(forged.path("detail").asString()).contains("not a cursor");
        for (String key : List.of("low", "high", "middle")) {
            api.delete("/api/v1/topics/t-inspect/messages/" + key).expect(200);
        }
    }

    @Test
    void aPausedTopicHandsOutNothingUntilItIsResumed() {
        api.send("t-pause", Map.of("payload", "x", "key", "paused-1", "priority", 20));

        JsonNode paused = api.post("/api/v1/topics/t-pause/pause").expect(200);
        assertThat(paused.path("state").asString()).isEqualTo("paused");
        assertThat(paused.path("pausedSlots").asInt()).isEqualTo(2);
        assertThat(api.get("/api/v1/topics/t-pause/counts").expect(200).path("state").asString()).isEqualTo("paused");
        assertThat(api.pull("t-pause", 10, "PT2S")).isEmpty();

        JsonNode resumed = api.post("/api/v1/topics/t-pause/resume").expect(200);
        assertThat(resumed.path("state").asString()).isEqualTo("running");
        JsonNode delivery = api.pullKey("t-pause", "paused-1");
        api.ack(delivery);
    }

    @Test
    void aClearEmptiesTheTopicAndSaysWhatItRemoved() {
        for (String key : List.of("clear-a", "clear-b", "clear-c")) {
            api.send("t-clear", Map.of("payload", "x", "key", key, "priority", 20));
        }

        JsonNode cleared = api.post("/api/v1/topics/t-clear/clear").expect(200);

        assertThat(cleared.path("topic").asString()).isEqualTo("t-clear");
        assertThat(cleared.path("waiting").asLong()).isEqualTo(3);
        assertThat(cleared.path("parked").asLong()).isZero();
        assertThat(cleared.path("dead").asLong()).isZero();
        assertThat(cleared.path("total").asLong()).isEqualTo(3);
        api.get("/api/v1/topics/t-clear/messages/clear-b").expect(404);
        assertThat(api.post("/api/v1/topics/t-clear/clear?dead=true").expect(200).path("total").asLong()).isZero();
        api.post("/api/v1/topics/t-clear/clear?dead=maybe").expect(400);
        api.post("/api/v1/topics/no-such-topic/clear").expect(404);
    }

    @Test
    void theDeadQueueIsListedRequeuedDeletedAndPurged() {
        List<String> keys = List.of("dead-a", "dead-b", "dead-c");
        keys.forEach(key -> api.send("t-dead", Map.of("payload", "payload of " + key, "key", key, "priority", 20)));
        bury(keys);

        JsonNode listed = api.get("/api/v1/topics/t-dead/dead").expect(200);
        assertThat(listed.path("total").asLong()).isEqualTo(3);
        List<String> dead = new ArrayList<>();
        listed.path("messages").forEach(message -> {
            dead.add(message.path("key").asString());
            assertThat(message.path("reason").asString()).isEqualTo("handler_verdict");
            assertThat(message.path("lastError").asString()).contains("poison");
            assertThat(message.path("payload").asString()).isEqualTo("payload of " + message.path("key").asString());
        });
        assertThat(dead).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(api.get("/api/v1/topics/t-dead/dead?count=2").expect(200).path("messages").size()).isEqualTo(2);
        assertThat(api.get("/api/v1/topics/t-dead/dead?offset=2").expect(200).path("messages").size()).isEqualTo(1);

        JsonNode requeued = api.post("/api/v1/topics/t-dead/dead/dead-a/requeue").expect(200);
        assertThat(requeued.path("operation").asString()).isEqualTo("requeued");
        assertThat(api.get("/api/v1/topics/t-dead/messages/dead-a").expect(200).path("state").asString())
                .isEqualTo("WAITING");
        api.post("/api/v1/topics/t-dead/dead/dead-a/requeue").problem("not-found", 404);

        assertThat(api.delete("/api/v1/topics/t-dead/dead/dead-b").expect(200).path("operation").asString())
                .isEqualTo("deleted");
        api.delete("/api/v1/topics/t-dead/dead/dead-b").problem("not-found", 404);

        JsonNode all = api.post("/api/v1/topics/t-dead/dead:requeue-all").expect(200);
        assertThat(all.path("messages").asLong()).as("dead-c").isEqualTo(1);
        assertThat(api.get("/api/v1/topics/t-dead/dead").expect(200).path("total").asLong()).isZero();

        bury(List.of("dead-a", "dead-c"));
        JsonNode purged = api.delete("/api/v1/topics/t-dead/dead").expect(200);
        assertThat(purged.path("operation").asString()).isEqualTo("purged");
        assertThat(purged.path("messages").asLong()).isEqualTo(2);
        assertThat(api.get("/api/v1/topics/t-dead/dead").expect(200).path("total").asLong()).isZero();
    }

    /** Pulls until every one of these keys came, and buries each; any other delivery is acknowledged. */
    private void bury(List<String> keys) {
        Set<String> left = new HashSet<>(keys);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode delivery : api.pull("t-dead", 10, "PT2S")) {
                if (left.remove(delivery.path("key").asString())) {
                    assertThat(api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/dead",
                            HttpApi.json(Map.of("reason", "poison"))).expect(200).path("outcome").asString())
                            .isEqualTo("DEAD");
                } else {
                    api.ack(delivery);
                }
            }
            return left.isEmpty();
        });
    }
}
