package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Consuming over HTTP: long-polling pulls, and settling each delivery by its token. */
@ServerTest
class PullApiTests {

    @Value("${local.server.port}")
    int port;

    HttpApi api;

    @BeforeEach
    void client() {
        api = new HttpApi(port);
        api.awaitPullerHoldsAllSlots(Set.of("t-wait", "t-pull", "t-lease"));
    }

    @Test
    void aWaitingPullReturnsAsSoonAsAMessageArrives() throws Exception {
        CompletableFuture<List<JsonNode>> pulled = CompletableFuture.supplyAsync(() -> api.pull("t-wait", 1, "PT25S"));

        api.send("t-wait", Map.of("payload", Map.of("id", "arrives"), "key", "arrives", "timeRange", "PT0.2S"));

        List<JsonNode> deliveries = pulled.get(20, TimeUnit.SECONDS);
        assertThat(deliveries).hasSize(1);
        assertThat(deliveries.get(0).path("key").asString()).isEqualTo("arrives");
        api.ack(deliveries.get(0));
    }

    @Test
    void aPullWaitsForTheNextDueTimeRatherThanItsTimeout() {
        api.send("t-wait", Map.of("payload", "soon", "key", "due-soon", "timeRange", "PT2S"));
        long start = System.nanoTime();

        List<JsonNode> deliveries = api.pull("t-wait", 1, "PT25S");

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(deliveries).hasSize(1);
        assertThat(deliveries.get(0).path("key").asString()).isEqualTo("due-soon");
        assertThat(took).as("answered when the message became due, long before the timeout")
                .isLessThan(Duration.ofSeconds(15));
        api.ack(deliveries.get(0));
    }

    @Test
    void aPullWithNothingDueAnswersWithNoneAfterItsTimeout() {
        long start = System.nanoTime();

        List<JsonNode> deliveries = api.pull("t-wait", 5, "PT1S");

        assertThat(deliveries).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }

    @Test
    void aDeliveryCarriesItsMessageAndAToken() {
        api.send("t-pull", Map.of("payload", Map.of("task", "export"), "key", "carry-1", "priority", 42,
                "headers", Map.of("tenant", "acme")));

        JsonNode delivery = api.pullKey("t-pull", "carry-1");

        // the delivery under its HMAC: topic, slot, key and lease, base64url
        assertThat(delivery.path("token").asString()).matches("[A-Za-z0-9_-]{40,}");
        assertThat(delivery.path("topic").asString()).isEqualTo("t-pull");
        assertThat(delivery.path("attempt").asInt()).isEqualTo(1);
        assertThat(delivery.path("priority").asLong()).isEqualTo(42);
        assertThat(delivery.path("payload").path("task").asString()).isEqualTo("export");
        assertThat(delivery.path("headers").path("tenant").asString()).isEqualTo("acme");
        assertThat(Instant.parse(delivery.path("leaseDeadline").asString())).isAfter(Instant.now());
        JsonNode stored = api.get("/api/v1/topics/t-pull/messages/carry-1").expect(200);
        assertThat(stored.path("state").asString()).isEqualTo("IN_FLIGHT");
        assertThat(stored.path("leaseDeadline").asString()).as("one instant, to the millisecond, wherever it is read")
                .isEqualTo(delivery.path("leaseDeadline").asString());
        assertThat(Instant.parse(delivery.path("leaseDeadline").asString()).getNano() % 1_000_000).isZero();
        api.ack(delivery);
    }

    @Test
    void anAcknowledgedMessageIsGone() {
        api.send("t-pull", Map.of("payload", "x", "key", "ack-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "ack-1");

        JsonNode outcome = api.ack(delivery);

        assertThat(outcome.path("outcome").asString()).isEqualTo("COMMITTED");
        api.get("/api/v1/topics/t-pull/messages/ack-1").problem("not-found", 404);
        api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/ack").problem("lease-expired", 410);
    }

    @Test
    void aRetriedMessageComesBackAfterTheBackoffWithItsReason() {
        api.send("t-pull", Map.of("payload", "x", "key", "retry-1", "priority", 20));
        JsonNode first = api.pullKey("t-pull", "retry-1");

        JsonNode outcome = api.post("/api/v1/deliveries/" + first.path("token").asString() + "/retry",
                HttpApi.json(Map.of("reason", "the warehouse is closed"))).expect(200);

        assertThat(outcome.path("outcome").asString()).isEqualTo("RETRY");
        JsonNode second = api.pullKey("t-pull", "retry-1");
        assertThat(second.path("attempt").asInt()).isEqualTo(2);
        assertThat(second.path("lastError").asString()).isEqualTo("the warehouse is closed");
        assertThat(second.path("token").asString()).isNotEqualTo(first.path("token").asString());
        api.ack(second);
    }

    @Test
    void aMessageRetriedNowComesBackAtOnce() {
        api.send("t-pull", Map.of("payload", "x", "key", "now-1", "priority", 20));
        JsonNode first = api.pullKey("t-pull", "now-1");

        JsonNode outcome = api.post("/api/v1/deliveries/" + first.path("token").asString() + "/retry-now",
                HttpApi.json(Map.of("reason", "timed out"))).expect(200);

        assertThat(outcome.path("outcome").asString()).isEqualTo("RETRY");
        JsonNode second = api.pullKey("t-pull", "now-1");
        assertThat(second.path("attempt").asInt()).isEqualTo(2);
        api.ack(second);
    }

    @Test
    void aReleasedMessageComesBackAtOnceAsTheSameAttempt() {
        api.send("t-pull", Map.of("payload", "x", "key", "release-1", "priority", 20));
        JsonNode first = api.pullKey("t-pull", "release-1");

        JsonNode outcome = api.post("/api/v1/deliveries/" + first.path("token").asString() + "/release", "")
                .expect(200);

        assertThat(outcome.path("outcome").asString()).isEqualTo("RELEASED");
        JsonNode second = api.pullKey("t-pull", "release-1");
        assertThat(second.path("attempt").asInt()).as("a release is not an attempt").isEqualTo(1);
        api.ack(second);
        // the token was withdrawn by the release
        api.post("/api/v1/deliveries/" + first.path("token").asString() + "/release", "").expect(410);
    }

    @Test
    void aBuriedMessageGoesToTheDeadQueueWithItsReason() {
        api.send("t-pull", Map.of("payload", "x", "key", "dead-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "dead-1");

        JsonNode outcome = api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/dead",
                HttpApi.json(Map.of("reason", "poison"))).expect(200);

        assertThat(outcome.path("outcome").asString()).isEqualTo("DEAD");
        JsonNode stored = api.get("/api/v1/topics/t-pull/messages/dead-1").expect(200);
        assertThat(stored.path("state").asString()).isEqualTo("DEAD");
        assertThat(stored.path("lastError").asString()).contains("poison");
        assertThat(stored.path("diedAt").asString()).isNotEmpty();
        api.delete("/api/v1/topics/t-pull/dead/dead-1").expect(200);
    }

    @Test
    void anExtendedLeaseEndsLaterAndTheMessageIsStillAcknowledged() {
        api.send("t-pull", Map.of("payload", "x", "key", "extend-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "extend-1");
        Instant before = Instant.parse(delivery.path("leaseDeadline").asString());
        // past the longest extension (100 years), and past what a millisecond count holds: refused, the lease kept
        for (String tooLong : List.of("P110000D", "PT9223372036854776S")) {
            api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/extend",
                    HttpApi.json(Map.of("duration", tooLong))).problem("invalid-argument", 400);
        }

        JsonNode extended = api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/extend",
                HttpApi.json(Map.of("duration", "PT5M"))).expect(200);

        assertThat(extended.path("outcome").asString()).isEqualTo("EXTENDED");
        Instant after = Instant.parse(extended.path("leaseDeadline").asString());
        assertThat(after).isAfter(before.plus(Duration.ofMinutes(4)));
        String renewed = extended.path("token").asString();
        assertThat(renewed).as("the token of the new lease").isNotEqualTo(delivery.path("token").asString());
        assertThat(api.post("/api/v1/deliveries/" + renewed + "/ack").expect(200).path("outcome").asString())
                .isEqualTo("COMMITTED");
        api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/ack")
                .problem("lease-expired", 410);
    }

    @Test
    void aTokenTwoExtensionsOldIsWithdrawnAndTheOneBeforeTheLatestStillSettles() {
        api.send("t-pull", Map.of("payload", "x", "key", "extend-often", "priority", 20));
        List<String> tokens = new ArrayList<>(List.of(api.pullKey("t-pull", "extend-often").path("token").asString()));
        for (int i = 0; i < 3; i++) {
            tokens.add(api.post("/api/v1/deliveries/" + tokens.get(i) + "/extend",
                    HttpApi.json(Map.of("duration", "PT5M"))).expect(200).path("token").asString());
        }

        for (String withdrawn : tokens.subList(0, 2)) {
            api.post("/api/v1/deliveries/" + withdrawn + "/ack").problem("lease-expired", 410);
        }
        assertThat(api.post("/api/v1/deliveries/" + tokens.get(2) + "/ack").expect(200).path("outcome").asString())
                .as("the token the latest extension replaced, for a client that did not get its answer")
                .isEqualTo("COMMITTED");
        api.post("/api/v1/deliveries/" + tokens.get(3) + "/ack").problem("lease-expired", 410);
    }

    @Test
    void anExtensionWithAnOlderTokenAfterALostAnswerWithdrawsTheTokenThatAnswerCarried() {
        api.send("t-pull", Map.of("payload", "x", "key", "extend-lost", "priority", 20));
        String first = api.pullKey("t-pull", "extend-lost").path("token").asString();
        String extend = "/api/v1/deliveries/" + first + "/extend";
        String lost = api.post(extend, HttpApi.json(Map.of("duration", "PT5M"))).expect(200).path("token").asString();
        // the client never saw that answer, and extends again with the token it has
        String latest = api.post(extend, HttpApi.json(Map.of("duration", "PT5M"))).expect(200).path("token").asString();

        api.post("/api/v1/deliveries/" + lost + "/ack").problem("lease-expired", 410);
        assertThat(api.post("/api/v1/deliveries/" + latest + "/ack").expect(200).path("outcome").asString())
                .isEqualTo("COMMITTED");
    }

    @Test
    void progressIsShownByTheMessageLookUpAndAReportCanExtendTheLease() {
        api.send("t-pull", Map.of("payload", "x", "key", "progress-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "progress-1");
        String token = delivery.path("token").asString();

        JsonNode recorded = api.post("/api/v1/deliveries/" + token + "/progress",
                HttpApi.json(Map.of("percent", 40, "note", "rows 400 of 1000"))).expect(200);
        assertThat(recorded.path("outcome").asString()).isEqualTo("PROGRESS_RECORDED");
        assertThat(recorded.path("token").asString()).as("the lease stays, and its token").isEqualTo(token);
        JsonNode stored = api.get("/api/v1/topics/t-pull/messages/progress-1").expect(200);
        assertThat(stored.path("progress").path("percent").asInt()).isEqualTo(40);
        assertThat(stored.path("progress").path("note").asString()).isEqualTo("rows 400 of 1000");
        assertThat(Instant.parse(stored.path("progress").path("reportedAt").asString()))
                .isBefore(Instant.parse(stored.path("leaseDeadline").asString()));

        JsonNode extended = api.post("/api/v1/deliveries/" + token + "/progress",
                HttpApi.json(Map.of("percent", 80, "extendLease", "PT5M"))).expect(200);
        assertThat(Instant.parse(extended.path("leaseDeadline").asString()))
                .isAfter(Instant.parse(delivery.path("leaseDeadline").asString()).plus(Duration.ofMinutes(4)));
        assertThat(extended.path("token").asString()).as("the token of the new lease").isNotEqualTo(token);
        assertThat(api.get("/api/v1/topics/t-pull/messages/progress-1").expect(200).path("progress").path("note")
                .asString()).as("a report without a note").isEmpty();

        api.post("/api/v1/deliveries/" + token + "/progress", HttpApi.json(Map.of("percent", 101)))
                .problem("invalid-argument", 400);
        api.post("/api/v1/deliveries/" + token + "/progress", HttpApi.json(Map.of("note", "no percent")))
                .problem("malformed-body", 400);
        assertThat(api.post("/api/v1/deliveries/" + extended.path("token").asString() + "/ack").expect(200)
                .path("outcome").asString()).isEqualTo("COMMITTED");
        api.get("/api/v1/topics/t-pull/messages/progress-1").problem("not-found", 404);
    }

    @Test
    void anExtendedDeliveryIsStillAcknowledgedByItsFirstTokenOnTheServerThatHandedItOut() {
        api.send("t-pull", Map.of("payload", "x", "key", "extend-2", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "extend-2");
        api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/extend",
                HttpApi.json(Map.of("duration", "PT5M"))).expect(200);
        assertThat(api.ack(delivery).path("outcome").asString()).isEqualTo("COMMITTED");
    }

    @Test
    void aMessageCancelledInFlightCannotBeExtendedAndItsSettleSaysCancelled() {
        api.send("t-pull", Map.of("payload", "x", "key", "cancel-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-pull", "cancel-1");
        String token = delivery.path("token").asString();

        api.delete("/api/v1/topics/t-pull/messages/cancel-1").expect(200);

        api.get("/api/v1/topics/t-pull/messages/cancel-1").problem("not-found", 404);
        JsonNode refused = api.post("/api/v1/deliveries/" + token + "/extend",
                HttpApi.json(Map.of("duration", "PT5M"))).problem("lease-expired", 410);
        assertThat(refused.path("detail").asString()).contains("cancel-1", "was cancelled while in flight");
        assertThat(api.ack(delivery).path("outcome").asString()).isEqualTo("CANCELLED");
        api.post("/api/v1/deliveries/" + token + "/ack").problem("lease-expired", 410);
        api.delete("/api/v1/topics/t-pull/messages/cancel-1").problem("not-found", 404);
    }

    @Test
    void manyDeliveriesAreAcknowledgedInOneCallAndAnUnknownOrRepeatedTokenIsStale() {
        Set<String> keys = Set.of("many-1", "many-2", "many-3");
        keys.forEach(key -> api.send("t-pull", Map.of("payload", key, "key", key, "priority", 20)));
        List<JsonNode> mine = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode delivery : api.pull("t-pull", 10, "PT2S")) {
                if (keys.contains(delivery.path("key").asString()) && seen.add(delivery.path("key").asString())) {
                    mine.add(delivery);
                } else {
                    api.ack(delivery);
                }
            }
            return seen.size() == keys.size();
        });
        List<String> tokens = new ArrayList<>(mine.stream().map(d -> d.path("token").asString()).toList());
        tokens.add("no-such-token");
        // given twice: the first acknowledges it, and the others still go
        tokens.add(1, tokens.get(0));

        JsonNode results = api.post("/api/v1/deliveries:ack", HttpApi.json(Map.of("tokens", tokens))).expect(200)
                .path("results");

        assertThat(results.size()).isEqualTo(5);
        for (int i : new int[] {0, 2, 3}) {
            assertThat(results.get(i).path("token").asString()).isEqualTo(tokens.get(i));
            assertThat(results.get(i).path("outcome").asString()).isEqualTo("COMMITTED");
        }
        assertThat(results.get(1).path("outcome").asString()).isEqualTo("STALE");
        assertThat(results.get(4).path("outcome").asString()).isEqualTo("STALE");
        keys.forEach(key -> api.get("/api/v1/topics/t-pull/messages/" + key).problem("not-found", 404));
    }

    @Test
    void aDeliveryWhoseLeasePassedCanNoLongerBeSettled() {
        api.send("t-lease", Map.of("payload", "slow", "key", "slow-1", "priority", 20));
        JsonNode delivery = api.pullKey("t-lease", "slow-1");
        Instant deadline = Instant.parse(delivery.path("leaseDeadline").asString());

        await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(deadline.plusMillis(200)));

        JsonNode problem = api.post("/api/v1/deliveries/" + delivery.path("token").asString() + "/ack")
                .problem("lease-expired", 410);
        assertThat(problem.path("detail").asString()).as("told in HTTP's terms")
                .contains("slow-1", "POST /api/v1/deliveries/{token}/extend").doesNotContain("extend()");
        // the message was not lost: it comes back, and is acknowledged this time
        JsonNode again = api.pullKey("t-lease", "slow-1");
        assertThat(again.path("attempt").asInt()).isEqualTo(2);
        api.ack(again);
    }
}
