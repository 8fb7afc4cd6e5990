package dev.rmq.producer;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.codec.MessageKeys;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ProducerTests extends StandaloneRedisTest {

    private RmqClient rmq;
    private RmqProducer producer;

    @BeforeEach
    void client() {
        rmq = RmqClient.builder(redisson)
                .topic(Fixtures.topic("prices", TopicType.RANGE_MERGE, 4))
                .topic(Fixtures.topic("tasks", TopicType.PRIORITY, 4))
                .topic(Fixtures.topic("orders", TopicType.FIXED_TIME, 4))
                .maxPayloadBytes(4096)
                .build();
        producer = rmq.producer();
    }

    /** The score the store holds for a waiting message: its due time or priority. */
    private double score(String topic, String key) {
        StoredMessage stored = producer.get(MessageRef.of(topic, key)).orElseThrow();
        assertThat(stored.state()).isEqualTo(MessageState.WAITING);
        return stored.score();
    }

    @Test
    void rangeMergeKeepsTheFirstDueTimeAndTheLatestPayload() {
        long before = redisTimeMs();
        SendReceipt first = producer.send(OutgoingMessage.rangeMerge("prices", "v1", Duration.ofSeconds(10)).withKey("sku-1"));
        SendReceipt second = producer.send(OutgoingMessage.rangeMerge("prices", "v2", Duration.ofSeconds(60)).withKey("sku-1"));
        long after = redisTimeMs();

        assertThat(first.merged()).isFalse();
        assertThat(second.merged()).isTrue();
        assertThat(second.slot()).isEqualTo(first.slot());
        String store = "rmq:{prices_" + first.slot() + "}";
        assertThat(score("prices", "sku-1")).isBetween(before + 10_000.0, after + 10_000.0);
        assertThat(producer.get(MessageRef.of("prices", "sku-1")).orElseThrow().payloadText()).isEqualTo("v2");
        assertThat(redis.command("ZCARD", store)).isEqualTo(1L);
    }

    @Test
    void priorityTakesTheLatestPriority() {
        producer.send(OutgoingMessage.priority("tasks", "t", 100).withKey("m1"));
        SendReceipt again = producer.send(OutgoingMessage.priority("tasks", "t", 20).withKey("m1"));
        assertThat(again.merged()).isTrue();
        assertThat(score("tasks", "m1")).isEqualTo(20.0);
    }

    @Test
    void aKeySentTwiceInOneBatchMergesAsInTwoSendsForEveryType() {
        long before = redisTimeMs();
        List<SendReceipt> prices = producer.sendAll(List.of(
                OutgoingMessage.rangeMerge("prices", "v1", Duration.ofSeconds(10)).withKey("sku-1"),
                OutgoingMessage.rangeMerge("prices", "v2", Duration.ofSeconds(60)).withKey("sku-1")));
        assertThat(prices).extracting(SendReceipt::merged).containsExactly(false, true);
        assertThat(score("prices", "sku-1")).isBetween(before + 10_000.0, redisTimeMs() + 10_000.0);
        assertThat(producer.get(MessageRef.of("prices", "sku-1")).orElseThrow().payloadText()).isEqualTo("v2");

        List<SendReceipt> tasks = producer.sendAll(List.of(OutgoingMessage.priority("tasks", "t1", 100).withKey("m1"),
                OutgoingMessage.priority("tasks", "t2", 20).withKey("m1")));
        assertThat(tasks).extracting(SendReceipt::merged).containsExactly(false, true);
        assertThat(score("tasks", "m1")).isEqualTo(20.0);
        assertThat(producer.get(MessageRef.of("tasks", "m1")).orElseThrow().payloadText()).isEqualTo("t2");

        Instant late = Instant.ofEpochMilli(redisTimeMs() + 120_000);
        List<SendReceipt> orders = producer.sendAll(List.of(
                OutgoingMessage.fixedTime("orders", "o1", late.minusSeconds(60)).withKey("o1"),
                OutgoingMessage.fixedTime("orders", "o2", late).withKey("o1")));
        assertThat(orders).extracting(SendReceipt::merged).containsExactly(false, true);
        assertThat(score("orders", "o1")).isEqualTo((double) late.toEpochMilli());
        assertThat(redis.command("ZCARD", "rmq:{orders_" + orders.get(0).slot() + "}")).isEqualTo(1L);
    }

    @Test
    void fixedTimeTakesTheLatestTime() {
        Instant early = Instant.ofEpochMilli(redisTimeMs() + 60_000);
        Instant late = early.plusSeconds(60);
        producer.send(OutgoingMessage.fixedTime("orders", "o", early).withKey("o1"));
        SendReceipt again = producer.send(OutgoingMessage.fixedTime("orders", "o", late).withKey("o1"));
        assertThat(again.merged()).isTrue();
        assertThat(score("orders", "o1")).isEqualTo((double) late.toEpochMilli());
    }

    @Test
    void fixedTimeFurtherInThePastThanTheToleranceIsRefusedAndNothingIsWritten() {
        producer.send(OutgoingMessage.fixedTime("orders", "keep", Instant.ofEpochMilli(redisTimeMs() + 60_000)).withKey("k"));
        Instant past = Instant.ofEpochMilli(redisTimeMs() - 60_000);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> producer.send(OutgoingMessage.fixedTime("orders", "x", past).withKey("k")))
                .withMessageContaining("fixed time " + past + " of key \"k\" in topic 'orders' is ")
                .withMessageContaining("ms behind the Redis clock")
                .withMessageContaining("more than the topic's late tolerance of 10000 ms");
        assertThat(producer.get(MessageRef.of("orders", "k")).orElseThrow().payloadText()).isEqualTo("keep");
    }

    @Test
    void derivesTheKeyFromDeterministicJsonSoEqualObjectsMerge() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("sku", "A-1");
        a.put("price", 10);
        Map<String, Object> b = new TreeMap<>(java.util.Comparator.reverseOrder());
        b.putAll(a);
        SendReceipt first = producer.send(OutgoingMessage.rangeMerge("prices", a, Duration.ofSeconds(5)));
        SendReceipt second = producer.send(OutgoingMessage.rangeMerge("prices", b, Duration.ofSeconds(5)));
        assertThat(second.merged()).isTrue();
        assertThat(second.key()).isEqualTo(first.key())
                .isEqualTo(MessageKeys.derive("{\"price\":10,\"sku\":\"A-1\"}".getBytes(StandardCharsets.UTF_8)));
        record Price(String sku, int price) {
        }
        assertThat(producer.send(OutgoingMessage.rangeMerge("prices", new Price("A-1", 10), Duration.ofSeconds(5))).merged())
                .isTrue();
    }

    @Test
    void routesByTheSlotBasisWhenGiven() {
        SendReceipt receipt = producer.send(OutgoingMessage.priority("tasks", "x", 50).withKey("k").withSlotBasis("order-7"));
        assertThat(receipt.slot()).isEqualTo(rmq.topics().require("tasks").slotOf("order-7"));
        assertThat(producer.exists(MessageRef.of("tasks", "k").withSlotBasis("order-7"))).isTrue();
    }

    @Test
    void keepsStringAndByteArrayPayloadsAndHeadersExactly() {
        byte[] raw = {0, (byte) 0xC3, 0x28, 127};
        producer.send(OutgoingMessage.priority("tasks", raw, 30).withKey("bytes").withHeader("h", "ü{}"));
        StoredMessage stored = producer.get(MessageRef.of("tasks", "bytes")).orElseThrow();
        assertThat(stored.payload()).containsExactly(raw);
        assertThat(stored.headers()).containsExactlyEntriesOf(Map.of("h", "ü{}"));
        assertThat(stored.state()).isEqualTo(MessageState.WAITING);
        assertThat(stored.score()).isEqualTo(30.0);
    }

    @Test
    void batchGroupsBySlotAndReturnsReceiptsInOrder() {
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            batch.add(OutgoingMessage.priority("tasks", "p" + i, 17 + i).withKey("k" + (i % 600)));
        }
        List<SendReceipt> receipts = producer.sendAll(batch);
        assertThat(receipts).hasSize(700);
        for (int i = 0; i < 700; i++) {
            assertThat(receipts.get(i).key()).isEqualTo("k" + (i % 600));
            assertThat(receipts.get(i).merged()).as("receipt %d", i).isEqualTo(i >= 600);
        }
        long total = 0;
        for (int slot = 0; slot < 4; slot++) {
            total += (Long) redis.command("ZCARD", "rmq:{tasks_" + slot + "}");
        }
        assertThat(total).isEqualTo(600);
        assertThat(producer.get(MessageRef.of("tasks", "k5")).orElseThrow().payloadText()).isEqualTo("p605");
    }

    @Test
    void aMessageTheScriptRefusesIsNotSentAgain() {
        List<OutgoingMessage> batch = List.of(
                OutgoingMessage.fixedTime("orders", "late", Instant.ofEpochMilli(redisTimeMs() - 60_000)).withKey("late"));
        redis.command("CONFIG", "RESETSTAT");
        assertThatThrownBy(() -> producer.sendAll(batch)).isInstanceOf(BatchSendException.class);
        // a refusal is the same in every round, so the pipeline's retry rounds are not for it
        String calls = Fixtures.hasFunctions(redis) ? "cmdstat_fcall" : "cmdstat_evalsha";
        assertThat(String.valueOf(redis.info("commandstats").get(calls))).startsWith("calls=1,");
    }

    @Test
    void aBatchWithAPastFixedTimeStoresTheRestAndSaysExactlyWhichWasRefused() {
        long now = redisTimeMs();
        List<OutgoingMessage> batch = List.of(
                OutgoingMessage.fixedTime("orders", "a", Instant.ofEpochMilli(now + 60_000)).withKey("a").withSlotBasis("same"),
                OutgoingMessage.fixedTime("orders", "b", Instant.ofEpochMilli(now - 60_000)).withKey("b").withSlotBasis("same"),
                OutgoingMessage.priority("tasks", "c", 40).withKey("c"));
        BatchSendException failed = catchThrowableOfType(BatchSendException.class, () -> producer.sendAll(batch));

        assertThat(failed.outcomes()).extracting(SendOutcome::status).containsExactly(SendOutcome.Status.STORED,
                SendOutcome.Status.REFUSED, SendOutcome.Status.STORED);
        assertThat(failed.outcomes().get(1).error()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fixed time " + Instant.ofEpochMilli(now - 60_000) + " of key \"b\" in topic 'orders' is ")
                .hasMessageEndingWith("more than the topic's late tolerance of 10000 ms; nothing was written");
        assertThat(failed.stored()).extracting(SendReceipt::key).containsExactly("a", "c");
        assertThat(failed.toResend()).containsExactly(batch.get(1));
        assertThat(failed.unknown()).isEmpty();
        assertThat(producer.exists(MessageRef.of("orders", "a").withSlotBasis("same"))).isTrue();
        assertThat(producer.exists(MessageRef.of("orders", "b").withSlotBasis("same"))).isFalse();
        assertThat(producer.exists(MessageRef.of("tasks", "c"))).isTrue();
    }

    @Test
    void cancelsReschedulesAndReprioritizesWaitingMessages() {
        Instant due = Instant.ofEpochMilli(redisTimeMs() + 60_000);
        producer.send(OutgoingMessage.fixedTime("orders", "o", due).withKey("o1"));
        producer.send(OutgoingMessage.priority("tasks", "t", 50).withKey("t1"));

        Instant later = due.plusSeconds(30);
        assertThat(producer.reschedule(MessageRef.of("orders", "o1"), later)).isTrue();
        assertThat(producer.get(MessageRef.of("orders", "o1")).orElseThrow().score()).isEqualTo((double) later.toEpochMilli());
        assertThat(producer.reschedule(MessageRef.of("orders", "missing"), later)).isFalse();
        assertThat(producer.reprioritize(MessageRef.of("tasks", "t1"), 99)).isTrue();
        assertThat(producer.get(MessageRef.of("tasks", "t1")).orElseThrow().score()).isEqualTo(99.0);

        assertThat(producer.cancel(MessageRef.of("orders", "o1"))).isTrue();
        assertThat(producer.cancel(MessageRef.of("orders", "o1"))).isFalse();
        assertThat(producer.exists(MessageRef.of("orders", "o1"))).isFalse();
        assertThat(producer.get(MessageRef.of("orders", "o1"))).isEmpty();
        assertThat(redis.command("HLEN", "rmq:body{orders_" + rmq.topics().require("orders").slotOf("o1") + "}")).isEqualTo(0L);
    }

    @Test
    void keepsWorkingWhenRedisForgetsTheScriptsAsAfterARestart() {
        producer.send(OutgoingMessage.priority("tasks", "a", 20).withKey("a"));
        Fixtures.forgetScripts(redis);
        assertThat(producer.send(OutgoingMessage.priority("tasks", "b", 20).withKey("b")).merged()).isFalse();
        Fixtures.forgetScripts(redis);
        assertThat(producer.sendAll(List.of(OutgoingMessage.priority("tasks", "c", 20).withKey("c"),
                OutgoingMessage.priority("tasks", "a2", 20).withKey("a")))).extracting(SendReceipt::merged)
                .containsExactly(false, true);
        Fixtures.forgetScripts(redis);
        assertThat(producer.sendAll(List.of(OutgoingMessage.priority("tasks", "d", 20).withKey("d")))).hasSize(1);
        assertThat(producer.exists(MessageRef.of("tasks", "d"))).isTrue();
    }

    @Test
    void refusesBadInputWithClearMessages() {
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("tasks", "x", 16))
                .withMessage("priority must be in 17..9007199254740992 (values up to 16 are reserved), was 16");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "x", Duration.ZERO))
                .withMessage("timeRange must be at least 1 ms, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "x", Duration.ofMillis(-5)))
                .withMessageContaining("timeRange must be at least 1 ms");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("tasks", null, 20))
                .withMessage("payload of a message to topic 'tasks' must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.fixedTime("orders", "x", null))
                .withMessage("fixedTime must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("tasks", "x", 20).withKey(""))
                .withMessage("key must not be null or empty");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("tasks", "x", 20).withHeader("h", null))
                .withMessage("value of header 'h' must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> producer.send(OutgoingMessage.priority("nope", "x", 20)))
                .isInstanceOf(UnknownTopicException.class)
                .withMessage("unknown topic 'nope'; defined topics are [orders, prices, tasks]");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> producer.send(OutgoingMessage.priority("orders", "x", 20)))
                .withMessage("topic 'orders' is a FIXED_TIME topic; a PRIORITY message cannot be sent to it");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> producer.send(OutgoingMessage.priority("tasks", "x".repeat(5000), 20)))
                .isInstanceOf(PayloadTooLargeException.class)
                .withMessageContaining("message to topic 'tasks' is 50").withMessageContaining("the limit is 4096 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> producer.reprioritize(MessageRef.of("orders", "k"), 20))
                .withMessageContaining("is a FIXED_TIME topic");
        assertThatIllegalArgumentException().isThrownBy(() -> RmqClient.builder(redisson).maxPayloadBytes(0).build())
                .withMessageContaining("maxPayloadBytes must be in 1..");
        assertThatIllegalArgumentException().isThrownBy(() -> RmqClient.builder(redisson).sendBufferBytes(1023))
                .withMessage("sendBufferBytes must be at least 1024, was 1023");
        assertThat(redis.command("DBSIZE")).as("nothing reached Redis").isEqualTo(0L);
    }
}
