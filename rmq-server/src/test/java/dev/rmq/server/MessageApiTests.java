package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Sending one message and batches, and looking up, cancelling and moving a message by key. */
@ServerTest
class MessageApiTests {

    @Value("${local.server.port}")
    int port;

    HttpApi api;

    @BeforeEach
    void client() {
        api = new HttpApi(port);
    }

    @Test
    void sendsAFixedTimeMessageAndFindsItByKey() {
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
        HttpApi.Reply sent = api.post("/api/v1/topics/t-fixed/messages", HttpApi.json(Map.of(
                "payload", Map.of("orderId", "o-1", "cents", 2599), "key", "o-1", "dueTime", due.toString(),
                "headers", Map.of("tenant", "acme"))));

        JsonNode receipt = sent.expect(201);
        assertThat(receipt.path("topic").asString()).isEqualTo("t-fixed");
        assertThat(receipt.path("key").asString()).isEqualTo("o-1");
        assertThat(receipt.path("merged").asBoolean()).isFalse();
        assertThat(receipt.path("lateBy").asString()).isEqualTo("PT0S");
        assertThat(receipt.path("slot").asInt()).isBetween(0, 3);
        assertThat(sent.headers().firstValue("Location")).hasValue("/api/v1/topics/t-fixed/messages/o-1");

        JsonNode stored = api.get("/api/v1/topics/t-fixed/messages/o-1").expect(200);
        assertThat(stored.path("state").asString()).isEqualTo("WAITING");
        assertThat(stored.path("dueTime").asString()).isEqualTo(due.toString());
        assertThat(stored.path("attempts").asInt()).isZero();
        assertThat(stored.path("payload").path("orderId").asString()).isEqualTo("o-1");
        assertThat(stored.path("payload").path("cents").asInt()).isEqualTo(2599);
        assertThat(stored.path("payloadFormat").asString()).isEqualTo("json");
        assertThat(stored.path("headers").path("tenant").asString()).isEqualTo("acme");
    }

    @Test
    void anEncryptedTopicsPayloadIsNeverShownAndAPullReadsItDecrypted() {
        Map<String, Object> order = Map.of("orderId", "o-sealed", "iban", "DE89370400440532013000",
                "note", "x".repeat(200));
        api.send("t-sealed", Map.of("payload", order, "key", "o-sealed", "priority", 50));

        JsonNode stored = api.get("/api/v1/topics/t-sealed/messages/o-sealed").expect(200);
        assertThat(stored.path("payload").isNull()).isTrue();
        assertThat(stored.path("payloadFormat").asString()).isEqualTo("encrypted");
        assertThat(stored.path("headers").path("rmq-key-id").asString()).isEqualTo("test");
        assertThat(stored.path("headers").path("rmq-compression").asString()).isEqualTo("deflate");
        assertThat(stored.path("headers").path("rmq-version").asString()).isEqualTo("2");
        JsonNode topic = api.get("/api/v1/topics/t-sealed").expect(200);
        assertThat(topic.path("payload").path("encrypted").asBoolean()).isTrue();
        assertThat(topic.path("payload").path("compressAbove").asInt()).isEqualTo(64);

        JsonNode delivery = api.pullKey("t-sealed", "o-sealed");
        assertThat(delivery.path("payload").path("iban").asString()).isEqualTo("DE89370400440532013000");
        api.ack(delivery);
    }

    @Test
    void aSecondSendOfAWaitingKeyMergesAndTakesTheLatestFixedTime() {
        Instant first = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
        Instant second = first.plus(Duration.ofMinutes(5));
        api.send("t-fixed", Map.of("payload", "v1", "key", "o-merge", "dueTime", first.toString()));

        JsonNode receipt = api.send("t-fixed", Map.of("payload", "v2", "key", "o-merge", "dueTime", second.toString()));

        assertThat(receipt.path("merged").asBoolean()).isTrue();
        JsonNode stored = api.get("/api/v1/topics/t-fixed/messages/o-merge").expect(200);
        assertThat(stored.path("dueTime").asString()).isEqualTo(second.toString());
        assertThat(stored.path("payload").asString()).isEqualTo("v2");
    }

    @Test
    void aFixedTimeWithinTheLateToleranceIsTakenAndReportedLate() {
        Instant past = Instant.now().minusSeconds(3).truncatedTo(ChronoUnit.MILLIS);

        JsonNode receipt = api.send("t-fixed", Map.of("payload", "late", "key", "o-late", "dueTime", past.toString()));

        assertThat(Duration.parse(receipt.path("lateBy").asString())).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void rangeMergeSendsWithinTheWindowMergeIntoTheFirst() {
        JsonNode first = api.send("t-range", Map.of("payload", Map.of("cents", 1001), "key", "sku-1",
                "timeRange", "PT1H"));
        JsonNode second = api.send("t-range", Map.of("payload", Map.of("cents", 1002), "key", "sku-1", "delay", "PT1H"));

        assertThat(first.path("merged").asBoolean()).isFalse();
        assertThat(second.path("merged").asBoolean()).isTrue();
        JsonNode stored = api.get("/api/v1/topics/t-range/messages/sku-1").expect(200);
        assertThat(stored.path("payload").path("cents").asInt()).as("the latest payload").isEqualTo(1002);
        assertThat(Instant.parse(stored.path("dueTime").asString())).isAfter(Instant.now().plus(Duration.ofMinutes(50)));
    }

    @Test
    void aSendChoosesWhatItsRepeatedKeyDoesAndTheReceiptSaysWhatHappened() {
        JsonNode first = api.send("t-range", Map.of("payload", "first", "key", "rk-1", "timeRange", "PT1H"));
        assertThat(first.path("outcome").asString()).isEqualTo("ADDED");

        JsonNode kept = api.post("/api/v1/topics/t-range/messages", HttpApi.json(Map.of("payload", "second",
                "key", "rk-1", "timeRange", "PT1H", "repeatedKey", "KEEP_FIRST"))).expect(200);
        assertThat(kept.path("outcome").asString()).isEqualTo("KEPT");
        assertThat(api.get("/api/v1/topics/t-range/messages/rk-1").expect(200).path("payload").asString())
                .isEqualTo("first");

        Map<String, Object> throttled = Map.of("payload", "t", "key", "rk-2", "timeRange", "PT1H",
                "repeatedKey", "THROTTLE", "throttleWindow", "PT1H");
        assertThat(api.send("t-range", throttled).path("outcome").asString()).isEqualTo("ADDED");
        api.delete("/api/v1/topics/t-range/messages/rk-2").expect(200);
        assertThat(api.post("/api/v1/topics/t-range/messages", HttpApi.json(throttled)).expect(200)
                .path("outcome").asString()).as("refused for the window, though cancelled").isEqualTo("THROTTLED");

        JsonNode batch = api.post("/api/v1/topics/t-range/messages:batch", HttpApi.json(Map.of("messages",
                List.of(throttled, Map.of("payload", "n", "key", "rk-3", "timeRange", "PT1H"))))).expect(200);
        assertThat(batch.path("duplicates").asInt()).isEqualTo(1);
        assertThat(batch.path("stored").asInt()).isEqualTo(1);
        assertThat(batch.path("results").get(0).path("status").asString()).isEqualTo("DUPLICATE");
        assertThat(batch.path("results").get(0).path("outcome").asString()).isEqualTo("THROTTLED");

        api.post("/api/v1/topics/t-range/messages", HttpApi.json(Map.of("payload", "x", "timeRange", "PT1H",
                "repeatedKey", "THROTTLE"))).problem("invalid-argument", 400);
        api.post("/api/v1/topics/t-range/messages", HttpApi.json(Map.of("payload", "x", "timeRange", "PT1H",
                "repeatedKey", "ONCE"))).problem("invalid-argument", 400);
        JsonNode priority = api.post("/api/v1/topics/t-priority/messages", HttpApi.json(Map.of("payload", "x",
                "priority", 30, "repeatedKey", "DEBOUNCE"))).problem("invalid-argument", 400);
        assertThat(priority.path("detail").asString()).contains("DEBOUNCE");
        for (String key : List.of("rk-1", "rk-3")) {
            api.delete("/api/v1/topics/t-range/messages/" + key).expect(200);
        }
    }

    @Test
    void aKeyDerivedFromThePayloadMergesEqualPayloads() {
        JsonNode first = api.send("t-range", Map.of("payload", Map.of("b", 2, "a", 1), "timeRange", "PT1H"));
        JsonNode second = api.send("t-range", Map.of("payload", Map.of("a", 1, "b", 2), "timeRange", "PT1H"));

        assertThat(second.path("key").asString()).isEqualTo(first.path("key").asString()).hasSize(22);
        assertThat(second.path("merged").asBoolean()).isTrue();
    }

    @Test
    void aPriorityMessageIsReprioritized() {
        api.send("t-priority", Map.of("payload", "job", "key", "job-1", "priority", 50));

        JsonNode moved = api.post("/api/v1/topics/t-priority/messages/job-1/reschedule",
                HttpApi.json(Map.of("priority", 70))).expect(200);

        assertThat(moved.path("priority").asLong()).isEqualTo(70);
        assertThat(api.get("/api/v1/topics/t-priority/messages/job-1").expect(200).path("priority").asLong())
                .isEqualTo(70);
    }

    @Test
    void aPriorityMessageIsHeldBackByANewNotBeforeTime() {
        api.send("t-priority", Map.of("payload", "job", "key", "job-held", "priority", 50));
        String later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS).toString();

        JsonNode moved = api.post("/api/v1/topics/t-priority/messages/job-held/reschedule",
                HttpApi.json(Map.of("notBefore", later))).expect(200);

        assertThat(moved.path("notBefore").asString()).isEqualTo(later);
        JsonNode stored = api.get("/api/v1/topics/t-priority/messages/job-held").expect(200);
        assertThat(stored.path("state").asString()).isEqualTo("DELAYED");
        api.post("/api/v1/topics/t-priority/messages/job-held/reschedule",
                HttpApi.json(Map.of("notBefore", later, "priority", 60))).expect(400);
        api.post("/api/v1/topics/t-fixed/messages/job-held/reschedule",
                HttpApi.json(Map.of("notBefore", later))).expect(400);
        api.delete("/api/v1/topics/t-priority/messages/job-held").expect(200);
    }

    @Test
    void aFixedTimeMessageIsRescheduled() {
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
        // asked with microseconds; Redis keeps due times to the millisecond, and the answer says so
        Instant later = due.plus(Duration.ofHours(1)).plusNanos(123_456);
        String kept = later.truncatedTo(ChronoUnit.MILLIS).toString();
        api.send("t-fixed", Map.of("payload", "x", "key", "o-move", "dueTime", due.toString()));

        JsonNode moved = api.post("/api/v1/topics/t-fixed/messages/o-move/reschedule",
                HttpApi.json(Map.of("dueTime", later.toString()))).expect(200);

        assertThat(moved.path("dueTime").asString()).isEqualTo(kept);
        assertThat(api.get("/api/v1/topics/t-fixed/messages/o-move").expect(200).path("dueTime").asString())
                .isEqualTo(kept);
    }

    @Test
    void durationsAndInstantsTooFarForAMillisecondAreRefusedAsInvalid() {
        String tooLong = "PT9223372036854776S";
        api.post("/api/v1/topics/t-range/messages", HttpApi.json(Map.of("payload", "x", "timeRange", tooLong)))
                .problem("invalid-argument", 400);
        api.post("/api/v1/topics/t-range/messages", HttpApi.json(Map.of("payload", "x", "timeRange", "PT1H",
                "ttl", tooLong))).problem("invalid-argument", 400);
        api.post("/api/v1/topics/t-fixed/messages", HttpApi.json(Map.of("payload", "x",
                "dueTime", "+300000000-01-01T00:00:00Z"))).problem("invalid-argument", 400);
        api.send("t-fixed", Map.of("payload", "x", "key", "o-far", "dueTime",
                Instant.now().plus(Duration.ofHours(1)).toString()));
        api.post("/api/v1/topics/t-fixed/messages/o-far/reschedule",
                HttpApi.json(Map.of("dueTime", "+300000000-01-01T00:00:00Z"))).problem("invalid-argument", 400);
    }

    @Test
    void aCancelledMessageIsGoneAndASecondCancelFindsNothing() {
        api.send("t-fixed", Map.of("payload", "x", "key", "o-cancel",
                "dueTime", Instant.now().plus(Duration.ofHours(1)).toString()));

        JsonNode cancelled = api.delete("/api/v1/topics/t-fixed/messages/o-cancel").expect(200);

        assertThat(cancelled.path("cancelled").asBoolean()).isTrue();
        api.get("/api/v1/topics/t-fixed/messages/o-cancel").problem("not-found", 404);
        api.delete("/api/v1/topics/t-fixed/messages/o-cancel").problem("not-found", 404);
    }

    @Test
    void aMessageSentWithASlotBasisIsFoundWithIt() {
        api.send("t-priority", Map.of("payload", "x", "key", "line-1", "slotBasis", "order-9", "priority", 20));

        JsonNode stored = api.get("/api/v1/topics/t-priority/messages/line-1?slotBasis=order-9").expect(200);

        assertThat(stored.path("key").asString()).isEqualTo("line-1");
        assertThat(api.delete("/api/v1/topics/t-priority/messages/line-1?slotBasis=order-9").expect(200)
                .path("cancelled").asBoolean()).isTrue();
    }

    @Test
    void aMessageWithATimeToLiveShowsWhenItExpires() {
        api.send("t-priority", Map.of("payload", "x", "key", "ttl-1", "priority", 20, "ttl", "PT1H"));

        JsonNode stored = api.get("/api/v1/topics/t-priority/messages/ttl-1").expect(200);

        assertThat(Instant.parse(stored.path("expiresAt").asString())).isAfter(Instant.now().plus(Duration.ofMinutes(50)));
    }

    @Test
    void aBatchIsSentInOneCallWithTheReceiptsInOrder() {
        List<Map<String, Object>> messages = List.of(
                Map.of("payload", "a", "key", "batch-a", "priority", 30),
                Map.of("payload", "b", "key", "batch-b", "priority", 40),
                Map.of("payload", "c", "key", "batch-a", "priority", 50));

        JsonNode batch = api.post("/api/v1/topics/t-priority/messages:batch",
                HttpApi.json(Map.of("messages", messages))).expect(201);

        assertThat(batch.path("stored").asInt()).isEqualTo(3);
        assertThat(batch.path("refused").asInt()).isZero();
        assertThat(batch.path("unknown").asInt()).isZero();
        JsonNode results = batch.path("results");
        assertThat(results.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(results.get(i).path("index").asInt()).isEqualTo(i);
            assertThat(results.get(i).path("status").asString()).isEqualTo("STORED");
        }
        assertThat(results.get(0).path("key").asString()).isEqualTo("batch-a");
        assertThat(results.get(1).path("key").asString()).isEqualTo("batch-b");
        assertThat(results.get(2).path("merged").asBoolean()).as("the third merged into the first").isTrue();
        assertThat(api.get("/api/v1/topics/t-priority/messages/batch-a").expect(200).path("priority").asLong())
                .isEqualTo(50);
    }

    @Test
    void aRefusedMessageOfABatchIsReportedOnItsOwn() {
        // t-backlog holds at most one waiting message
        List<Map<String, Object>> messages = List.of(
                Map.of("payload", "first", "key", "full-1", "priority", 30),
                Map.of("payload", "second", "key", "full-2", "priority", 30));

        HttpApi.Reply reply = api.post("/api/v1/topics/t-backlog/messages:batch", HttpApi.json(Map.of("messages", messages)));

        JsonNode batch = reply.expect(200);
        assertThat(batch.path("stored").asInt()).isEqualTo(1);
        assertThat(batch.path("refused").asInt()).isEqualTo(1);
        assertThat(batch.path("results").get(0).path("status").asString()).isEqualTo("STORED");
        JsonNode refused = batch.path("results").get(1);
        assertThat(refused.path("status").asString()).isEqualTo("REFUSED");
        assertThat(refused.path("problem").path("type").asString()).isEqualTo(HttpApi.PROBLEMS + "backlog-full");
        assertThat(refused.path("problem").path("detail").asString()).contains("full-2");
        api.delete("/api/v1/topics/t-backlog/messages/full-1").expect(200);
    }

    @Test
    void aMalformedMessageRefusesTheWholeBatchAndNamesIt() {
        List<Map<String, Object>> messages = List.of(
                Map.of("payload", "fine", "key", "never-1", "priority", 30),
                Map.of("payload", "reserved", "key", "never-2", "priority", 5));

        JsonNode problem = api.post("/api/v1/topics/t-priority/messages:batch",
                HttpApi.json(Map.of("messages", messages))).problem("bad-priority", 400);

        assertThat(problem.path("index").asInt()).isEqualTo(1);
        assertThat(problem.path("detail").asString()).contains("messages[1].priority");
        api.get("/api/v1/topics/t-priority/messages/never-1").problem("not-found", 404);
    }

    @Test
    void aHistoryWithoutAJournalIsAConflictThatSaysHowToKeepOne() {
        JsonNode problem = api.get("/api/v1/topics/t-fixed/messages/any/history").problem("journal-disabled", 409);
        assertThat(problem.path("detail").asString()).contains("spring.datasource.url");
        api.get("/api/v1/topics/nope/messages/any/history").problem("unknown-topic", 404);
    }
}
