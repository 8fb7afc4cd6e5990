package dev.rmq.consumer;

import dev.rmq.dead.DeadReason;
import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.dead.DeadMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ConsumerTests extends StandaloneRedisTest {

    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();
    private RmqClient rmq;
    private RmqProducer producer;

    /** What a handler saw: the message and the Redis clock when it started. */
    record Seen(String key, int attempt, long redisNowMs, Instant due, long priority, String lastError, String payload) {
    }

    @BeforeEach
    void client() {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("tasks", TopicType.PRIORITY).slotAmount(1).leaseTimeout(Duration.ofSeconds(5))
                        .maxRetries(2).backoff(BackoffPolicy.fixed(Duration.ofMillis(300))).build())
                .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(2).build())
                .topic(TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(2).build())
                .topic(TopicDefinition.builder("flaky", TopicType.FIXED_TIME).slotAmount(1).maxRetries(2)
                        .backoff(new BackoffPolicy(Duration.ofMillis(200), 2.0, Duration.ofSeconds(10), 0)).build())
                .topic(Fixtures.topic("maps", TopicType.PRIORITY, 1))
                .build();
        producer = rmq.producer();
    }

    @AfterEach
    void stopContainers() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
    }

    private <T> RmqConsumerContainer<T> start(String topic, Class<T> type, RmqHandler<T> handler, ConsumerSettings settings) {
        RmqConsumerContainer<T> container = rmq.container(topic, type, handler).settings(settings).build();
        containers.add(container);
        container.start();
        return container;
    }

    private RmqHandler<String> recording(List<Seen> seen) {
        return RmqHandler.committing(m -> seen.add(new Seen(m.key(), m.attempt(), redisTimeMs(), m.dueTime().orElse(null),
                m.priority().orElse(-1), m.lastError(), m.payload())));
    }

    @Test
    void priorityTopicsDeliverTheHighestPriorityFirst() {
        List<Long> priorities = new ArrayList<>();
        for (long p = 20; p < 60; p++) {
            priorities.add(p);
        }
        Collections.shuffle(priorities);
        for (long p : priorities) {
            producer.send(OutgoingMessage.priority("tasks", "p" + p, p).withKey("k" + p));
        }
        List<Seen> seen = new CopyOnWriteArrayList<>();
        start("tasks", String.class, recording(seen), ConsumerSettings.DEFAULTS.withBatchSize(7));

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 40);
        assertThat(seen).extracting(Seen::priority).isSortedAccordingTo(Collections.reverseOrder());
        assertThat(seen).allSatisfy(s -> assertThat(s.attempt()).isEqualTo(1));
    }

    @Test
    void timedTopicsDeliverEarliestDueFirstAndNeverBeforeTheDueTimeByTheRedisClock() {
        long now = redisTimeMs();
        List<Integer> offsets = new ArrayList<>(List.of(400, 900, 150, 1300, 650, 1100, 250));
        for (int offset : offsets) {
            producer.send(OutgoingMessage.fixedTime("orders", "o" + offset, Instant.ofEpochMilli(now + offset))
                    .withKey("k" + offset).withSlotBasis("one-slot"));
        }
        List<Seen> seen = new CopyOnWriteArrayList<>();
        start("orders", String.class, recording(seen), ConsumerSettings.DEFAULTS);

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == offsets.size());
        assertThat(seen).extracting(s -> s.due().toEpochMilli()).isSorted();
        assertThat(seen).allSatisfy(s -> assertThat(s.redisNowMs()).isGreaterThanOrEqualTo(s.due().toEpochMilli()));
    }

    @Test
    void rangeMergeDeliversABurstOnceAfterTheWindowOfTheFirstSend() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        start("prices", String.class, recording(seen), ConsumerSettings.DEFAULTS);
        long beforeFirst = redisTimeMs();
        producer.send(OutgoingMessage.rangeMerge("prices", "price-0", Duration.ofMillis(600)).withKey("sku-1"));
        long afterFirst = redisTimeMs();
        for (int i = 1; i < 20; i++) {
            producer.send(OutgoingMessage.rangeMerge("prices", "price-" + i, Duration.ofMillis(600)).withKey("sku-1"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 1);
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> seen.size() == 1);
        Seen only = seen.get(0);
        assertThat(only.payload()).isEqualTo("price-19");
        // the window of the first send, not of the later ones
        assertThat(only.due().toEpochMilli()).isBetween(beforeFirst + 600, afterFirst + 600);
        assertThat(only.redisNowMs()).isGreaterThanOrEqualTo(only.due().toEpochMilli());
    }

    @Test
    void aSendWakesAnIdleConsumerLongBeforeItsIdlePoll() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        ConsumerSettings slowPolling = ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMinutes(1));
        start("tasks", String.class, recording(seen), slowPolling);
        start("orders", String.class, recording(seen), slowPolling);
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.command("EXISTS", "rmq:wake{tasks_0}").equals(1L)
                && redis.command("EXISTS", "rmq:wake{orders_0}").equals(1L) && redis.command("EXISTS", "rmq:wake{orders_1}").equals(1L));

        producer.send(OutgoingMessage.priority("tasks", "now", 30));
        producer.send(OutgoingMessage.fixedTime("orders", "soon", Instant.ofEpochMilli(redisTimeMs() + 300)));

        // without the wake-up both would wait for the one-minute idle poll
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
    }

    @Test
    void aWakeUpDoesNotCutTheHoldOffOfASlotTakenOver() {
        // the slot was taken over while a cut-off worker may still be handling its messages: wait 1.5 s
        long[] assignedAt = new long[1];
        SlotAssignment takeover = new SlotAssignment() {
            @Override
            public void start(dev.rmq.topic.TopicDefinition topic, List<? extends SlotOwner> workers) {
                assignedAt[0] = System.nanoTime();
                workers.get(0).assign(0, "", Duration.ofMillis(1500));
            }

            @Override
            public void close() {
            }
        };
        // as if the previous owner had planned its next poll far ahead, so that a send publishes a wake-up
        redis.command("SET", "rmq:wake{tasks_0}", String.valueOf(redisTimeMs() + 60_000));
        long[] handledAt = new long[1];
        RmqConsumerContainer<String> container = rmq.container("tasks", String.class, m -> {
            handledAt[0] = System.nanoTime();
            return null;
        }).assignment(() -> takeover).build();
        containers.add(container);
        container.start();

        producer.send(OutgoingMessage.priority("tasks", "woken", 30));
        assertThat(redis.command("GET", "rmq:wake{tasks_0}"))
                .as("the send published a wake-up, and left the priority that woke it in the key").isEqualTo("p30");
        await().atMost(Duration.ofSeconds(10)).until(() -> handledAt[0] != 0);
        assertThat(Duration.ofNanos(handledAt[0] - assignedAt[0])).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void retriesWithBackoffUpToTheMaximumThenMovesToDeadWithTheLastError() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        List<Long> failedAt = new CopyOnWriteArrayList<>();
        start("flaky", String.class, m -> {
            seen.add(new Seen(m.key(), m.attempt(), redisTimeMs(), m.dueTime().orElseThrow(), -1, m.lastError(), m.payload()));
            failedAt.add(redisTimeMs());
            throw new IllegalStateException("boom " + m.attempt());
        }, ConsumerSettings.DEFAULTS);
        producer.send(OutgoingMessage.fixedTime("flaky", "x", Instant.ofEpochMilli(redisTimeMs() + 50)).withKey("x"));

        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count("flaky") == 1);
        assertThat(seen).extracting(Seen::attempt).containsExactly(1, 2, 3);
        assertThat(seen.get(0).lastError()).isEmpty();
        assertThat(seen.get(1).lastError()).isEqualTo("java.lang.IllegalStateException: boom 1");
        // exponential: 200 ms after the first failure, 400 ms after the second (no jitter); the failure is
        // timed in the handler, a little before the rollback that computes the due time
        assertThat(seen.get(1).due().toEpochMilli() - failedAt.get(0)).isBetween(200L, 350L);
        assertThat(seen.get(2).due().toEpochMilli() - failedAt.get(1)).isBetween(400L, 550L);

        DeadMessage dead = rmq.deadQueue().list("flaky", 0, 0, 10).get(0);
        assertThat(dead.key()).isEqualTo("x");
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.reason()).isEqualTo(DeadReason.RETRIES_SPENT);
        assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: boom 3");
        assertThat(dead.payloadText()).isEqualTo("x");
        assertThat(producer.exists(dev.rmq.producer.MessageRef.of("flaky", "x"))).isFalse();
    }

    @Test
    void aRequeuedDeadMessageIsDeliveredAgainFromTheFirstAttempt() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        start("tasks", String.class, m -> {
            seen.add(new Seen(m.key(), m.attempt(), 0, null, m.priority().orElseThrow(), m.lastError(), m.payload()));
            return seen.size() == 1 ? ConsumeResult.dead("not today") : ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS);
        producer.send(OutgoingMessage.priority("tasks", "job", 40).withKey("job"));
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("tasks") == 1);
        assertThat(rmq.deadQueue().list("tasks", 0, 0, 10).get(0)).satisfies(dead -> {
            assertThat(dead.reason()).isEqualTo(DeadReason.HANDLER_VERDICT);
            assertThat(dead.lastError()).isEqualTo("not today");
        });

        assertThat(rmq.deadQueue().requeue("tasks", 0, "job")).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
        assertThat(seen.get(1).attempt()).isEqualTo(1);
        assertThat(seen.get(1).priority()).isEqualTo(40);
        assertThat(rmq.deadQueue().count("tasks")).isZero();
    }

    @Test
    void aRetriedPriorityMessageWaitsOutItsBackoffThenReturnsAtItsPriority() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        start("tasks", String.class, m -> {
            seen.add(new Seen(m.key(), m.attempt(), redisTimeMs(), null, m.priority().orElseThrow(), m.lastError(), m.payload()));
            return m.key().equals("high") && m.attempt() == 1 ? ConsumeResult.retry("later") : ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withBatchSize(1));
        producer.send(OutgoingMessage.priority("tasks", "h", 90).withKey("high"));
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 1);
        producer.send(OutgoingMessage.priority("tasks", "l", 20).withKey("low"));

        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 3);
        assertThat(seen).extracting(Seen::key).containsExactly("high", "low", "high");
        assertThat(seen.get(2).priority()).isEqualTo(90);
        assertThat(seen.get(2).lastError()).isEqualTo("later");
        assertThat(seen.get(2).redisNowMs() - seen.get(0).redisNowMs()).isGreaterThanOrEqualTo(300);
    }

    @Test
    void poisonMessagesGoToDeadOnceWithTheReasonAndNeverLoop() {
        List<Map<String, Object>> handled = new CopyOnWriteArrayList<>();
        @SuppressWarnings({"unchecked", "rawtypes"})
        Class<Map<String, Object>> mapType = (Class) Map.class;
        producer.send(OutgoingMessage.priority("maps", "{\"ok\":true}", 50).withKey("good"));
        producer.send(OutgoingMessage.priority("maps", "not json at all", 40).withKey("bad-json"));
        redis.command("ZADD", "rmq:{maps_0}", "30", "bad-envelope");
        redis.command("HSET", "rmq:body{maps_0}", "bad-envelope", "garbage");
        start("maps", mapType, RmqHandler.committing(m -> handled.add(m.payload())), ConsumerSettings.DEFAULTS);

        // the undecodable ones go dead as the poll is decoded, before the good one's handler runs
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("maps") == 2 && !handled.isEmpty());
        assertThat(handled).containsExactly(Map.of("ok", true));
        List<DeadMessage> dead = rmq.deadQueue().list("maps", 0, 0, 10);
        assertThat(dead).extracting(DeadMessage::key).containsExactlyInAnyOrder("bad-json", "bad-envelope");
        assertThat(dead).filteredOn(d -> d.key().equals("bad-json")).singleElement()
                .satisfies(d -> {
                    assertThat(d.reason()).isEqualTo(DeadReason.UNDECODABLE);
                    assertThat(d.lastError()).startsWith("cannot decode: payload of 15 bytes cannot be read as java.util.Map");
                });
        assertThat(dead).filteredOn(d -> d.key().equals("bad-envelope")).singleElement()
                .satisfies(d -> {
                    assertThat(d.reason()).isEqualTo(DeadReason.UNDECODABLE);
                    assertThat(d.lastError()).startsWith("cannot decode: envelope is");
                    assertThat(d.payloadText()).isEqualTo("garbage");
                });
        await().during(Duration.ofMillis(500)).until(() -> rmq.deadQueue().count("maps") == 2 && handled.size() == 1);
    }

    @Test
    void deadQueueListsPagesCountsDeletesRequeuesAndPurges() {
        RmqConsumerContainer<String> container = start("tasks", String.class, m -> ConsumeResult.dead("reason " + m.key()),
                ConsumerSettings.DEFAULTS);
        for (int i = 0; i < 12; i++) {
            producer.send(OutgoingMessage.priority("tasks", "d" + i, 20 + i).withKey("d" + i));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("tasks") == 12);
        container.stop();

        assertThat(rmq.deadQueue().list("tasks", 0, 0, 5)).hasSize(5);
        assertThat(rmq.deadQueue().list("tasks", 0, 10, 5)).hasSize(2);
        assertThat(rmq.deadQueue().delete("tasks", 0, "d3")).isTrue();
        assertThat(rmq.deadQueue().delete("tasks", 0, "d3")).isFalse();
        assertThat(rmq.deadQueue().requeue("tasks", 0, "d4")).isTrue();
        assertThat(producer.get(dev.rmq.producer.MessageRef.of("tasks", "d4")).orElseThrow().score()).isEqualTo(24.0);
        assertThat(rmq.deadQueue().count("tasks")).isEqualTo(10);
        assertThat(rmq.deadQueue().requeueAll("tasks")).isEqualTo(10);
        assertThat(redis.command("ZCARD", "rmq:{tasks_0}")).isEqualTo(11L);
        container = start("tasks", String.class, m -> ConsumeResult.dead("again"), ConsumerSettings.DEFAULTS);
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("tasks") == 11);
        assertThat(rmq.deadQueue().purge("tasks")).isEqualTo(11);
        assertThat(rmq.deadQueue().count("tasks")).isZero();
        assertThat(redis.command("EXISTS", "rmq:deadbody{tasks_0}")).isEqualTo(0L);
    }
}
