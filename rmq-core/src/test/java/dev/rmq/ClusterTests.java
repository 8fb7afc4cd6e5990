package dev.rmq;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.redis.KeyLayout;
import dev.rmq.redis.Script;
import dev.rmq.redis.SlotKeys;
import dev.rmq.testsupport.RedisCluster;
import dev.rmq.testsupport.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * rmq against the shared real Redis Cluster (3 masters, 3 replicas): every slot of a topic keeps its keys
 * in one cluster hash slot, the slots of a topic spread over all masters, every Lua script runs there
 * without CROSSSLOT or MOVED errors, and a drained topic leaves no key behind.
 *
 * <p>Each test uses its own topic names and deletes their keys first, so the shared cluster is never flushed.
 * Every rmq script is loaded on every master before and after the class, so no test depends on which scripts
 * earlier test classes happened to leave cached where (see {@link #aBatchRunsEachScriptOnceWhenOnlySomeMastersHaveItCached}).
 */
class ClusterTests {

    private static final int SLOTS = 16;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static RedisCluster cluster;
    private static RedissonClient redisson;

    @BeforeAll
    static void connect() {
        cluster = RedisTestServers.sharedCluster();
        loadScriptsOnEveryMaster();
        redisson = Fixtures.redisson(cluster);
    }

    @AfterAll
    static void disconnect() {
        try {
            if (redisson != null) {
                redisson.shutdown();
            }
        } finally {
            // leave the shared cluster with every script cached everywhere, whatever a test flushed
            loadScriptsOnEveryMaster();
        }
    }

    // ---- 1. key layout -------------------------------------------------------------------------------

    @Test
    void slotsOfEveryTopicTypeSpreadOverAllThreeMastersWithAllNineKeysInOneClusterSlot() {
        Set<Integer> masterPorts = cluster.masters().stream().map(RedisServer::port).collect(Collectors.toSet());
        assertThat(masterPorts).hasSize(3);
        List<TopicDefinition> topics = new ArrayList<>();
        for (TopicType type : TopicType.values()) {
            topics.add(Fixtures.topic(flowTopic(type), type, SLOTS));
            topics.add(Fixtures.topic(drainTopic(type), type, SLOTS));
        }
        RmqClient rmq = RmqClient.builder(redisson).topics(topics).build();
        KeyLayout layout = new KeyLayout("");

        for (TopicDefinition topic : topics) {
            Map<Integer, Integer> slotsPerMaster = new TreeMap<>();
            for (int i = 0; i < topic.slotAmount(); i++) {
                SlotKeys keys = layout.slot(topic.name(), i);
                assertThat(rmq.context().keys().slot(topic.name(), i)).isEqualTo(keys);
                String tag = topic.name() + "_" + i;
                // the order lib.lua expects as KEYS[1..9]
                assertThat(keys.asScriptKeys()).containsExactly(tag, "body{" + tag + "}", "prepare{" + tag + "}",
                        "inflight{" + tag + "}", "retry{" + tag + "}", "dead{" + tag + "}", "deadbody{" + tag + "}",
                        "wake{" + tag + "}", "owner{" + tag + "}");
                int clusterSlot = cluster.keySlot(keys.store());
                for (Object key : keys.asScriptKeys()) {
                    assertThat(cluster.keySlot((String) key))
                            .as("CLUSTER KEYSLOT %s (slot %d of %s, whose store key is in cluster slot %d)", key, i,
                                    topic.name(), clusterSlot)
                            .isEqualTo(clusterSlot);
                }
                slotsPerMaster.merge(cluster.masterForSlot(clusterSlot).port(), 1, Integer::sum);
            }
            assertThat(slotsPerMaster.keySet()).as("masters holding slots of %s: %s", topic.name(), slotsPerMaster)
                    .isEqualTo(masterPorts);
        }
    }

    // ---- 2. every script on the cluster --------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(TopicType.class)
    void everyScriptRunsOnTheClusterWithoutCrossSlotErrors(TopicType type) {
        TopicDefinition topic = Fixtures.topic(flowTopic(type), type, SLOTS);
        String name = topic.name();
        deleteSlotKeys(topic);
        assertSlotsSpreadOverAllMasters(topic);
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        RmqProducer producer = rmq.producer();
        RmqDeadQueue deadQueue = rmq.deadQueue();
        ErrorWatch errors = ErrorWatch.start();
        try {
            Recorder recorder = new Recorder(topic);
            Map<String, Long> values = new HashMap<>();

            // batch send, spread over all slots
            long redisNow = redisTimeMs();
            List<OutgoingMessage> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                String key = "m-%03d".formatted(i);
                long value = switch (type) {
                    case RANGE_MERGE -> 100;
                    case PRIORITY -> 17 + i % 50;
                    case FIXED_TIME -> redisNow + 1_000 + i;
                };
                batch.add(message(topic, key, "payload-" + key, value));
                recorder.expect(key, "payload-" + key);
                values.put(key, value);
                if (i % 7 == 5) {
                    recorder.failFirst.add(key);
                }
                if (i % 50 == 4) {
                    recorder.extendLease.add(key);
                }
            }
            List<SendReceipt> receipts = producer.sendAll(batch);
            assertThat(receipts).hasSize(batch.size());
            for (int i = 0; i < receipts.size(); i++) {
                SendReceipt receipt = receipts.get(i);
                assertThat(receipt.key()).isEqualTo("m-%03d".formatted(i));
                assertThat(receipt.topic()).isEqualTo(name);
                assertThat(receipt.slot()).isEqualTo(topic.slotOf(receipt.key()));
                assertThat(receipt.merged()).as("merged %s", receipt.key()).isFalse();
            }
            assertThat(receipts.stream().map(SendReceipt::slot).collect(Collectors.toSet())).hasSize(SLOTS);

            // a batch that merges into waiting messages: the latest payload wins, the score as the type says
            long mergedFixedTime = redisTimeMs() + 1_200;
            List<OutgoingMessage> again = new ArrayList<>();
            for (int i = 10; i < 20; i++) {
                String key = "m-%03d".formatted(i);
                long value = switch (type) {
                    case RANGE_MERGE -> 60_000; // ignored by the merge: the first due time stays
                    case PRIORITY -> 600;
                    case FIXED_TIME -> mergedFixedTime;
                };
                again.add(message(topic, key, "v2-" + key, value));
                recorder.expect(key, "v2-" + key);
                if (type != TopicType.RANGE_MERGE) {
                    values.put(key, value);
                }
            }
            assertThat(producer.sendAll(again)).hasSize(10).allSatisfy(r -> assertThat(r.merged()).isTrue());

            // single sends, including the poison messages and one that always fails
            List<String> singles = new ArrayList<>();
            IntStream.range(0, 16).forEach(i -> singles.add("single-" + i));
            List<String> poison = List.of("poison-0", "poison-1", "poison-2", "poison-3", "poison-4");
            singles.addAll(poison);
            singles.add("doomed-0");
            long singleFixedTime = redisTimeMs() + 1_000;
            for (String key : singles) {
                long value = switch (type) {
                    case RANGE_MERGE -> 100;
                    case PRIORITY -> 40;
                    case FIXED_TIME -> singleFixedTime;
                };
                SendReceipt receipt = producer.send(message(topic, key, "payload-" + key, value));
                assertThat(receipt.merged()).isFalse();
                assertThat(receipt.slot()).isEqualTo(topic.slotOf(key));
                recorder.expect(key, "payload-" + key);
                values.put(key, value);
            }
            recorder.failFirst.add("single-3");
            recorder.poison.addAll(poison);
            recorder.doomed.add("doomed-0");

            // get / exists
            MessageRef first = ref(name, "m-000");
            StoredMessage stored = producer.get(first).orElseThrow();
            assertThat(stored.state()).isEqualTo(MessageState.WAITING);
            assertThat(stored.topic()).isEqualTo(name);
            assertThat(stored.slot()).isEqualTo(topic.slotOf("m-000"));
            assertThat(stored.key()).isEqualTo("m-000");
            assertThat(stored.attempts()).isZero();
            assertThat(stored.lastError()).isEmpty();
            assertThat(stored.payloadText()).isEqualTo("payload-m-000");
            assertThat(stored.headers()).containsExactlyEntriesOf(Map.of("key", "m-000"));
            if (type == TopicType.RANGE_MERGE) {
                assertThat(stored.score()).isBetween(redisNow + 100.0, redisTimeMs() + 100.0);
            } else {
                assertThat(stored.score()).isEqualTo((double) values.get("m-000"));
            }
            assertThat(producer.get(ref(name, "m-010")).orElseThrow().payloadText()).isEqualTo("v2-m-010");
            assertThat(producer.exists(first)).isTrue();
            assertThat(producer.exists(ref(name, "missing"))).isFalse();
            assertThat(producer.get(ref(name, "missing"))).isEmpty();

            // cancel
            for (String key : List.of("m-001", "m-002")) {
                assertThat(producer.cancel(ref(name, key))).as("cancel %s", key).isTrue();
                assertThat(producer.cancel(ref(name, key))).as("cancel %s again", key).isFalse();
                assertThat(producer.exists(ref(name, key))).isFalse();
                recorder.cancelled.add(key);
            }
            assertThat(producer.cancel(ref(name, "missing"))).isFalse();

            // reschedule / reprioritize
            MessageRef moved = ref(name, "m-003");
            if (type == TopicType.PRIORITY) {
                assertThat(producer.reprioritize(moved, 1_000_000)).isTrue();
                assertThat(producer.reprioritize(ref(name, "missing"), 1_000_000)).isFalse();
                values.put("m-003", 1_000_000L);
            } else {
                long at = redisTimeMs() + 2_000;
                assertThat(producer.reschedule(moved, Instant.ofEpochMilli(at))).isTrue();
                assertThat(producer.reschedule(ref(name, "missing"), Instant.ofEpochMilli(at))).isFalse();
                values.put("m-003", at);
                recorder.dueTimes.put("m-003", at);
            }
            assertThat(producer.get(moved).orElseThrow().score()).isEqualTo((double) values.get("m-003"));
            if (type == TopicType.PRIORITY) {
                recorder.priorities.putAll(values);
            } else if (type == TopicType.FIXED_TIME) {
                recorder.dueTimes.putAll(values);
            }

            Set<String> expectedSuccess = new LinkedHashSet<>(recorder.payloads.keySet());
            expectedSuccess.removeAll(recorder.cancelled);
            expectedSuccess.removeAll(recorder.poison);
            expectedSuccess.removeAll(recorder.doomed);

            RmqConsumerContainer<String> container = rmq.container(name, String.class, recorder).concurrency(2).build();
            try {
                container.start();

                // everything consumed, with rollbacks and retries; the poison and doomed messages dead
                await().atMost(PATIENCE).until(() -> recorder.succeededKeys().containsAll(expectedSuccess)
                        && deadQueue.count(name) == 6);
                assertThat(recorder.succeededKeys()).containsExactlyInAnyOrderElementsOf(expectedSuccess);
                assertThat(producer.get(first)).isEmpty();
                assertThat(producer.exists(first)).isFalse();

                // dead queue: count per slot, list every slot
                List<DeadMessage> dead = new ArrayList<>();
                long perSlot = 0;
                for (int slot = 0; slot < SLOTS; slot++) {
                    List<DeadMessage> page = deadQueue.list(name, slot, 0, 100);
                    assertThat(page).allSatisfy(m -> assertThat(m.topic()).isEqualTo(name));
                    int s = slot;
                    assertThat(page).allSatisfy(m -> assertThat(m.slot()).isEqualTo(s));
                    assertThat(deadQueue.count(name, slot)).isEqualTo(page.size());
                    perSlot += page.size();
                    dead.addAll(page);
                }
                assertThat(perSlot).isEqualTo(6);
                assertThat(dead).extracting(DeadMessage::key)
                        .containsExactlyInAnyOrder("poison-0", "poison-1", "poison-2", "poison-3", "poison-4", "doomed-0");
                for (DeadMessage m : dead) {
                    assertThat(m.slot()).isEqualTo(topic.slotOf(m.key()));
                    assertThat(m.payloadText()).isEqualTo("payload-" + m.key());
                    assertThat(m.headers()).containsExactlyEntriesOf(Map.of("key", m.key()));
                    assertThat(m.diedAt()).isNotNull();
                    if (m.key().startsWith("poison-")) {
                        assertThat(m.attempts()).isEqualTo(1);
                        assertThat(m.lastError()).isEqualTo("poison");
                    } else {
                        assertThat(m.attempts()).isEqualTo(topic.maxRetries() + 1);
                        assertThat(m.lastError()).isEqualTo("java.lang.IllegalStateException: doomed-0 always fails");
                    }
                }
                StoredMessage deadOne = producer.get(ref(name, "poison-3")).orElseThrow();
                assertThat(deadOne.state()).isEqualTo(MessageState.DEAD);
                assertThat(deadOne.lastError()).isEqualTo("poison");
                assertThat(producer.exists(ref(name, "poison-3"))).isFalse();

                // requeue one, healed: it is consumed from attempt 1
                recorder.healed.add("poison-0");
                assertThat(deadQueue.requeue(name, topic.slotOf("poison-0"), "poison-0")).isTrue();
                assertThat(deadQueue.requeue(name, topic.slotOf("m-000"), "m-000")).isFalse();
                await().atMost(PATIENCE).until(() -> recorder.successes("poison-0") == 1);
                assertThat(deadQueue.count(name)).isEqualTo(5);

                // delete one
                assertThat(deadQueue.delete(name, topic.slotOf("poison-1"), "poison-1")).isTrue();
                assertThat(deadQueue.delete(name, topic.slotOf("poison-1"), "poison-1")).isFalse();
                assertThat(deadQueue.count(name)).isEqualTo(4);

                // requeue all: the healed ones are consumed, the others die again
                recorder.healed.add("poison-2");
                recorder.healed.add("doomed-0");
                assertThat(deadQueue.requeueAll(name)).isEqualTo(4);
                await().atMost(PATIENCE).until(() -> recorder.successes("poison-2") == 1
                        && recorder.successes("doomed-0") == 1 && recorder.invocations("poison-3") == 2
                        && recorder.invocations("poison-4") == 2 && deadQueue.count(name) == 2);
                assertThat(deadQueue.list(name, topic.slotOf("poison-3"), 0, 100)).extracting(DeadMessage::key)
                        .contains("poison-3");

                // purge
                assertThat(deadQueue.purge(name)).isEqualTo(2);
                assertThat(deadQueue.count(name)).isZero();

                // and nothing more is delivered
                int settled = recorder.totalInvocations();
                await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                        .until(() -> recorder.totalInvocations() == settled);
            } finally {
                container.stop();
            }

            // exactly as expected: each message once, failed-first ones on their second attempt
            for (String key : expectedSuccess) {
                List<Delivered> successes = recorder.succeeded.get(key);
                assertThat(successes).as("successful deliveries of %s", key).hasSize(1);
                Delivered success = successes.get(0);
                if (recorder.failFirst.contains(key)) {
                    assertThat(success.attempt()).as("attempt of %s", key).isEqualTo(2);
                    assertThat(success.lastError()).isEqualTo("java.lang.IllegalStateException: first attempt of "
                            + key + " fails");
                    assertThat(recorder.invocations(key)).as("deliveries of %s", key).isEqualTo(2);
                } else {
                    assertThat(success.attempt()).as("attempt of %s", key).isEqualTo(1);
                    assertThat(success.lastError()).isEmpty();
                    assertThat(recorder.invocations(key)).as("deliveries of %s", key).isEqualTo(1);
                }
            }
            for (String key : List.of("poison-0", "poison-2", "doomed-0")) {
                Delivered success = recorder.succeeded.get(key).get(0);
                assertThat(recorder.succeeded.get(key)).hasSize(1);
                assertThat(success.attempt()).as("attempt of requeued %s", key).isEqualTo(1);
                assertThat(success.lastError()).isEmpty();
            }
            assertThat(recorder.invocations("poison-0")).isEqualTo(2);
            assertThat(recorder.invocations("poison-1")).isEqualTo(1);
            assertThat(recorder.invocations("poison-2")).isEqualTo(2);
            assertThat(recorder.invocations("poison-3")).isEqualTo(2);
            assertThat(recorder.invocations("poison-4")).isEqualTo(2);
            assertThat(recorder.invocations("doomed-0")).isEqualTo(topic.maxRetries() + 2);
            for (String key : recorder.cancelled) {
                assertThat(recorder.invocations(key)).as("deliveries of cancelled %s", key).isZero();
            }
            assertThat(recorder.extended).containsExactlyInAnyOrderElementsOf(recorder.extendLease);

            assertNothingLeftBehind(topic);
            errors.assertNone(recorder);
        } finally {
            errors.close();
        }
    }

    // ---- 3. nothing left behind ----------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(TopicType.class)
    void leavesNoKeyBehindOnAnyMasterOnceAllIsConsumedAndTheDeadArePurged(TopicType type) {
        TopicDefinition topic = Fixtures.topic(drainTopic(type), type, SLOTS);
        String name = topic.name();
        deleteSlotKeys(topic);
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        ErrorWatch errors = ErrorWatch.start();
        try {
            Recorder recorder = new Recorder(topic);
            long fixedTime = redisTimeMs() + 1_000;
            List<OutgoingMessage> batch = new ArrayList<>();
            Set<String> expectedSuccess = new HashSet<>();
            for (int i = 0; i < 160; i++) {
                String key = "k-" + i;
                long value = switch (type) {
                    case RANGE_MERGE -> 50;
                    case PRIORITY -> 17 + i;
                    case FIXED_TIME -> fixedTime;
                };
                batch.add(message(topic, key, "payload-" + key, value));
                recorder.expect(key, "payload-" + key);
                if (type == TopicType.PRIORITY) {
                    recorder.priorities.put(key, value);
                } else if (type == TopicType.FIXED_TIME) {
                    recorder.dueTimes.put(key, value);
                }
                if (i % 40 == 7) {
                    recorder.poison.add(key);
                } else {
                    expectedSuccess.add(key);
                }
                if (i % 5 == 0) {
                    recorder.failFirst.add(key);
                }
            }
            rmq.producer().sendAll(batch);

            // the check reads each slot on its own master: before consuming it sees every message, on every master
            Map<Integer, Long> waitingPerMaster = new TreeMap<>();
            for (int slot = 0; slot < SLOTS; slot++) {
                SlotKeys keys = rmq.context().keys().slot(name, slot);
                RedisServer master = masterOf(keys);
                waitingPerMaster.merge(master.port(), (Long) master.command("ZCARD", keys.store()), Long::sum);
            }
            assertThat(waitingPerMaster).hasSize(3).allSatisfy((port, count) -> assertThat(count).isPositive());
            assertThat(sizes(topic).get("store")).isEqualTo(160);
            assertThat(sizes(topic).get("body")).isEqualTo(160);

            RmqConsumerContainer<String> container = rmq.container(name, String.class, recorder).concurrency(2).build();
            try {
                container.start();
                await().atMost(PATIENCE).until(() -> recorder.succeededKeys().containsAll(expectedSuccess)
                        && rmq.deadQueue().count(name) == recorder.poison.size());
                await().atMost(PATIENCE).until(() -> sizes(topic).get("prepare") == 0);
            } finally {
                container.stop();
            }
            assertThat(recorder.succeededKeys()).containsExactlyInAnyOrderElementsOf(expectedSuccess);
            assertThat(recorder.succeeded.values()).allSatisfy(deliveries -> assertThat(deliveries).hasSize(1));
            Map<String, Long> beforePurge = sizes(topic);
            assertThat(beforePurge).containsEntry("store", 0L).containsEntry("body", 0L).containsEntry("prepare", 0L)
                    .containsEntry("inflight", 0L).containsEntry("retry", 0L)
                    .containsEntry("dead", (long) recorder.poison.size())
                    .containsEntry("deadbody", (long) recorder.poison.size());

            assertThat(rmq.deadQueue().purge(name)).isEqualTo(recorder.poison.size());

            assertNothingLeftBehind(topic);
            errors.assertNone(recorder);
        } finally {
            errors.close();
        }
    }

    // ---- 4. the EVAL fallback on the cluster ----------------------------------------------------------

    /**
     * With no script cached on any master, each single call meets NOSCRIPT and is repeated with EVAL, which
     * routes by the slot's key like EVALSHA. Only single calls here: batches are the subject of the next test.
     */
    @Test
    void singleCallsLoadMissingScriptsOnEveryMasterWithoutOtherErrors() {
        TopicDefinition topic = Fixtures.topic("cluster-fallback", TopicType.RANGE_MERGE, SLOTS);
        String name = topic.name();
        deleteSlotKeys(topic);
        assertSlotsSpreadOverAllMasters(topic);
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        RmqProducer producer = rmq.producer();
        RmqDeadQueue deadQueue = rmq.deadQueue();
        flushScriptsOnEveryMaster();
        ErrorWatch errors = ErrorWatch.start();
        try {
            Recorder recorder = new Recorder(topic);
            Set<String> expectedSuccess = new HashSet<>();
            for (int i = 0; i < 48; i++) {
                String key = "f-" + i;
                assertThat(producer.send(message(topic, key, "payload-" + key, 100)).merged()).isFalse();
                recorder.expect(key, "payload-" + key);
                expectedSuccess.add(key);
                if (i % 4 == 1) {
                    recorder.failFirst.add(key);
                }
            }
            assertThat(expectedSuccess.stream().map(topic::slotOf).collect(Collectors.toSet())).hasSize(SLOTS);
            producer.send(message(topic, "poison-0", "payload-poison-0", 100));
            recorder.expect("poison-0", "payload-poison-0");
            recorder.poison.add("poison-0");
            recorder.extendLease.add("f-0");
            assertThat(producer.get(ref(name, "f-2")).orElseThrow().state()).isEqualTo(MessageState.WAITING);
            assertThat(producer.cancel(ref(name, "f-3"))).isTrue();
            recorder.cancelled.add("f-3");
            expectedSuccess.remove("f-3");
            long at = redisTimeMs() + 500;
            assertThat(producer.reschedule(ref(name, "f-4"), Instant.ofEpochMilli(at))).isTrue();
            recorder.dueTimes.put("f-4", at);

            RmqConsumerContainer<String> container = rmq.container(name, String.class, recorder).concurrency(2).build();
            try {
                container.start();
                int poisonSlot = topic.slotOf("poison-0");
                await().atMost(PATIENCE).until(() -> recorder.succeededKeys().containsAll(expectedSuccess)
                        && deadQueue.count(name, poisonSlot) == 1);
                assertThat(deadQueue.list(name, poisonSlot, 0, 100)).extracting(DeadMessage::key).containsExactly("poison-0");
                recorder.healed.add("poison-0");
                assertThat(deadQueue.requeue(name, poisonSlot, "poison-0")).isTrue();
                await().atMost(PATIENCE).until(() -> recorder.successes("poison-0") == 1);
                assertThat(deadQueue.delete(name, poisonSlot, "poison-0")).isFalse();
                int settled = recorder.totalInvocations();
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                        .until(() -> recorder.totalInvocations() == settled);
            } finally {
                container.stop();
            }
            expectedSuccess.add("poison-0");
            assertThat(recorder.succeededKeys()).containsExactlyInAnyOrderElementsOf(expectedSuccess);
            assertThat(recorder.succeeded.values()).allSatisfy(list -> assertThat(list).hasSize(1));
            assertThat(recorder.extended).containsExactly("f-0");
            assertNothingLeftBehind(topic);
            assertThat(errors.counted("NOSCRIPT")).as("NOSCRIPT answers, each followed by an EVAL").isPositive();
            errors.assertNone(recorder, "NOSCRIPT");
        } finally {
            errors.close();
            loadScriptsOnEveryMaster();
        }
    }

    // ---- 5. batches against a master that lost its scripts -------------------------------------------

    /**
     * After a failover or restart one master may not know the scripts while the client believes all do.
     * Redisson then fails every reply of a multi-master batch with that master's NOSCRIPT, including the
     * replies of calls that did run elsewhere. The pipeline sends the batch again; calls that had run
     * replay their first reply (replay.lua), so nothing runs twice: new keys are not reported merged and
     * purge counts each dead message once.
     */
    @Test
    void aBatchRunsEachScriptOnceWhenOneMasterLostItsScripts() {
        TopicDefinition topic = Fixtures.topic("cluster-partial-cache", TopicType.RANGE_MERGE, SLOTS);
        String name = topic.name();
        deleteSlotKeys(topic);
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        try {
            List<String> mergedNewKeys = new ArrayList<>();
            List<Long> purgedCounts = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                RedisServer forgetful = cluster.masters().get(round % cluster.masters().size());
                rmq.producer().sendAll(List.of(message(topic, "warm-" + round, "warm", 60_000)));
                forgetful.command("SCRIPT", "FLUSH");
                List<OutgoingMessage> batch = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    batch.add(message(topic, "new-" + round + "-" + i, "payload", 60_000));
                }
                rmq.producer().sendAll(batch).stream().filter(SendReceipt::merged)
                        .forEach(receipt -> mergedNewKeys.add(receipt.key()));
                for (int i = 0; i < 300; i++) {
                    assertThat(rmq.producer().exists(ref(name, "new-" + round + "-" + i))).isTrue();
                }

                for (int slot = 0; slot < SLOTS; slot++) {
                    SlotKeys keys = rmq.context().keys().slot(name, slot);
                    for (int j = 0; j < 5; j++) {
                        masterOf(keys).command("ZADD", keys.dead(), "1", "d-" + j);
                        masterOf(keys).command("HSET", keys.deadBody(), "d-" + j, "dead");
                    }
                }
                forgetful.command("SCRIPT", "FLUSH");
                purgedCounts.add(rmq.deadQueue().purge(name));
                assertThat(sizes(topic).get("dead")).isZero();
            }
            assertThat(mergedNewKeys).as("new keys a batch reported as merged").isEmpty();
            assertThat(purgedCounts).as("what purge reported in each round (%d were there)", 5 * SLOTS)
                    .containsOnly(5L * SLOTS);
        } finally {
            loadScriptsOnEveryMaster();
            deleteSlotKeys(topic);
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------

    private static void loadScriptsOnEveryMaster() {
        for (RedisServer master : cluster.masters()) {
            for (Script script : Script.values()) {
                assertThat(master.command("SCRIPT", "LOAD", script.source())).as("SHA-1 of %s", script)
                        .isEqualTo(script.sha());
            }
        }
    }

    private static void flushScriptsOnEveryMaster() {
        for (RedisServer master : cluster.masters()) {
            master.command("SCRIPT", "FLUSH");
        }
    }

    private static String flowTopic(TopicType type) {
        return "cluster-flow-" + shortName(type);
    }

    private static String drainTopic(TopicType type) {
        return "cluster-rest-" + shortName(type);
    }

    private static String shortName(TopicType type) {
        return switch (type) {
            case RANGE_MERGE -> "range";
            case PRIORITY -> "priority";
            case FIXED_TIME -> "fixed";
        };
    }

    private static MessageRef ref(String topic, String key) {
        return MessageRef.of(topic, key);
    }

    /** value: the time range in ms, the priority, or the fixed time in epoch ms. */
    private static OutgoingMessage message(TopicDefinition topic, String key, String payload, long value) {
        OutgoingMessage message = switch (topic.type()) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofMillis(value));
            case PRIORITY -> OutgoingMessage.priority(topic.name(), payload, value);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), payload, Instant.ofEpochMilli(value));
        };
        return message.withKey(key).withHeader("key", key);
    }

    private static long redisTimeMs() {
        return Fixtures.redisTimeMs(cluster.masters().get(0));
    }

    private static RedisServer masterOf(SlotKeys keys) {
        return cluster.masterForSlot(cluster.keySlot(keys.store()));
    }

    private static void assertSlotsSpreadOverAllMasters(TopicDefinition topic) {
        Set<Integer> ports = new HashSet<>();
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            ports.add(masterOf(new KeyLayout("").slot(topic.name(), slot)).port());
        }
        assertThat(ports).as("masters holding slots of %s", topic.name()).hasSize(3);
    }

    /** Removes whatever an earlier run in this JVM left in the topic's keys; touches nothing else. */
    private static void deleteSlotKeys(TopicDefinition topic) {
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            List<String> command = new ArrayList<>(List.of("DEL"));
            keys.asScriptKeys().forEach(k -> command.add((String) k));
            masterOf(keys).command(command.toArray(String[]::new));
        }
    }

    /** Sum over the topic's slots of ZCARD or HLEN of each message key, read on the master of each slot. */
    private static Map<String, Long> sizes(TopicDefinition topic) {
        Map<String, Long> sizes = new TreeMap<>();
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            RedisServer master = masterOf(keys);
            sizes.merge("store", (Long) master.command("ZCARD", keys.store()), Long::sum);
            sizes.merge("body", (Long) master.command("HLEN", keys.body()), Long::sum);
            sizes.merge("prepare", (Long) master.command("ZCARD", keys.prepare()), Long::sum);
            sizes.merge("inflight", (Long) master.command("HLEN", keys.inflight()), Long::sum);
            sizes.merge("retry", (Long) master.command("ZCARD", keys.retry()), Long::sum);
            sizes.merge("dead", (Long) master.command("ZCARD", keys.dead()), Long::sum);
            sizes.merge("deadbody", (Long) master.command("HLEN", keys.deadBody()), Long::sum);
        }
        return sizes;
    }

    /**
     * Every message key of every slot is empty, checked on the slot's master (another master would answer
     * MOVED, which fails the command), and no master holds any key of the topic but the wake hints, which expire.
     */
    private static void assertNothingLeftBehind(TopicDefinition topic) {
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            RedisServer master = masterOf(keys);
            assertThat(master.command("ZCARD", keys.store())).as("ZCARD %s", keys.store()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.body())).as("HLEN %s", keys.body()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.prepare())).as("ZCARD %s", keys.prepare()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.inflight())).as("HLEN %s", keys.inflight()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.retry())).as("ZCARD %s", keys.retry()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.dead())).as("ZCARD %s", keys.dead()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.deadBody())).as("HLEN %s", keys.deadBody()).isEqualTo(0L);
            assertThat(master.command("EXISTS", keys.store(), keys.body(), keys.prepare(), keys.inflight(),
                    keys.retry(), keys.dead(), keys.deadBody())).as("keys of slot %d that still exist", slot).isEqualTo(0L);
        }
        for (RedisServer master : cluster.masters()) {
            @SuppressWarnings("unchecked")
            List<Object> left = (List<Object>) master.command("KEYS", "*" + topic.name() + "_*");
            // only keys that expire by themselves may remain: an idle consumer's wake time, a batch call's reply
            assertThat(left).as("keys of %s left on %s", topic.name(), master).allSatisfy(key -> {
                assertThat((String) key).matches("(wake|call)\\{" + topic.name() + "_\\d+}.*");
                assertThat((Long) master.command("PTTL", (String) key)).as("PTTL %s", key).isPositive();
            });
        }
    }

    /** One successful delivery as the handler saw it. */
    private record Delivered(int attempt, String lastError, Optional<Instant> dueTime, OptionalLong priority) {
    }

    /**
     * The handler: fails the first attempt of {@link #failFirst}, sends {@link #poison} to dead, always fails
     * {@link #doomed}, succeeds on {@link #healed}; records every delivery and collects anything unexpected
     * it sees (wrong payload, slot, priority, due time, a lease it cannot extend) in {@link #problems}.
     */
    private static final class Recorder implements RmqHandler<String> {
        final TopicDefinition topic;
        final Map<String, String> payloads = new ConcurrentHashMap<>();
        final Map<String, Long> priorities = new ConcurrentHashMap<>();
        final Map<String, Long> dueTimes = new ConcurrentHashMap<>();
        final Set<String> failFirst = ConcurrentHashMap.newKeySet();
        final Set<String> extendLease = ConcurrentHashMap.newKeySet();
        final Set<String> extended = ConcurrentHashMap.newKeySet();
        final Set<String> poison = ConcurrentHashMap.newKeySet();
        final Set<String> doomed = ConcurrentHashMap.newKeySet();
        final Set<String> healed = ConcurrentHashMap.newKeySet();
        final Set<String> cancelled = ConcurrentHashMap.newKeySet();
        final Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
        final Map<String, List<Delivered>> succeeded = new ConcurrentHashMap<>();
        final Queue<Throwable> problems = new ConcurrentLinkedQueue<>();

        Recorder(TopicDefinition topic) {
            this.topic = topic;
        }

        void expect(String key, String payload) {
            payloads.put(key, payload);
        }

        @Override
        public ConsumeResult handle(RmqMessage<String> message) {
            String key = message.key();
            delivered.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            try {
                check(message);
            } catch (Throwable t) {
                problems.add(t);
            }
            if (!healed.contains(key)) {
                if (poison.contains(key)) {
                    return ConsumeResult.dead("poison");
                }
                if (doomed.contains(key)) {
                    throw new IllegalStateException(key + " always fails");
                }
                if (failFirst.contains(key) && message.attempt() == 1) {
                    throw new IllegalStateException("first attempt of " + key + " fails");
                }
            }
            if (extendLease.contains(key)) {
                try {
                    Instant before = message.leaseDeadline();
                    message.extendLease(Duration.ofSeconds(5));
                    assertThat(message.leaseDeadline()).isAfter(before);
                    extended.add(key);
                } catch (Throwable t) {
                    problems.add(t);
                }
            }
            succeeded.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                    .add(new Delivered(message.attempt(), message.lastError(), message.dueTime(), message.priority()));
            return ConsumeResult.success();
        }

        private void check(RmqMessage<String> message) {
            String key = message.key();
            assertThat(message.topic()).isEqualTo(topic.name());
            assertThat(message.slot()).as("slot of %s", key).isEqualTo(topic.slotOf(key));
            assertThat(payloads).as("sent keys").containsKey(key);
            assertThat(cancelled).as("cancelled keys").doesNotContain(key);
            assertThat(message.payload()).as("payload of %s", key).isEqualTo(payloads.get(key));
            assertThat(message.headers()).as("headers of %s", key).containsExactlyEntriesOf(Map.of("key", key));
            assertThat(message.attempt()).as("attempt of %s", key).isBetween(1, topic.maxRetries() + 1);
            if (topic.type() == TopicType.PRIORITY) {
                assertThat(message.priority()).as("priority of %s", key).hasValue(priorities.get(key));
                assertThat(message.dueTime()).isEmpty();
            } else {
                assertThat(message.priority()).isEmpty();
                assertThat(message.dueTime()).isPresent();
                if (message.attempt() == 1 && message.lastError().isEmpty() && dueTimes.containsKey(key)
                        && !poison.contains(key) && !doomed.contains(key)) {
                    assertThat(message.dueTime()).as("due time of %s", key)
                            .hasValue(Instant.ofEpochMilli(dueTimes.get(key)));
                }
            }
            if (message.attempt() > 1) {
                assertThat(message.lastError()).as("last error of %s", key)
                        .startsWith("java.lang.IllegalStateException: ").contains(key).endsWith(" fails");
            }
        }

        Set<String> succeededKeys() {
            return Set.copyOf(succeeded.keySet());
        }

        int successes(String key) {
            List<Delivered> list = succeeded.get(key);
            return list == null ? 0 : list.size();
        }

        int invocations(String key) {
            AtomicInteger count = delivered.get(key);
            return count == null ? 0 : count.get();
        }

        int totalInvocations() {
            return delivered.values().stream().mapToInt(AtomicInteger::get).sum();
        }
    }

    /**
     * Watches for errors outside the test thread: warnings and errors logged by rmq's workers or Redisson
     * (a failed poll or ack is logged, not thrown) and every error reply counted by the Redis nodes in
     * {@code INFO errorstats}, where a CROSSSLOT, MOVED or ASK would show.
     */
    private static final class ErrorWatch implements AutoCloseable {
        private final Map<Integer, Map<String, Long>> before;
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
        private final ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

        private ErrorWatch() {
            before = errorStats();
            appender.start();
            root.addAppender(appender);
        }

        static ErrorWatch start() {
            return new ErrorWatch();
        }

        /** @param allowed error codes that may appear in INFO errorstats */
        void assertNone(Recorder recorder, String... allowed) {
            assertThat(recorder.problems).as("what the handler found wrong").isEmpty();
            List<String> logged;
            synchronized (appender) {
                logged = appender.list.stream()
                        .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)
                                || e.getFormattedMessage().contains("ran out before its ack"))
                        .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()
                                + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getMessage()))
                        .toList();
            }
            assertThat(logged).as("warnings and errors logged while the test ran").isEmpty();
            Map<Integer, Map<String, Long>> after = errorStats();
            Map<String, Long> unexpected = new TreeMap<>();
            after.forEach((port, stats) -> stats.forEach((error, count) -> {
                long delta = count - before.getOrDefault(port, Map.of()).getOrDefault(error, 0L);
                if (delta > 0 && !List.of(allowed).contains(error)) {
                    unexpected.put(port + " " + error, delta);
                }
            }));
            assertThat(unexpected).as("error replies counted by the Redis nodes (INFO errorstats) during the test")
                    .isEmpty();
        }

        /** How many {@code error} replies all nodes counted since the watch started. */
        long counted(String error) {
            long total = 0;
            for (Map.Entry<Integer, Map<String, Long>> node : errorStats().entrySet()) {
                total += node.getValue().getOrDefault(error, 0L)
                        - before.getOrDefault(node.getKey(), Map.of()).getOrDefault(error, 0L);
            }
            return total;
        }

        @Override
        public void close() {
            root.detachAppender(appender);
            appender.stop();
        }

        /** port -> error code -> count, from every node's INFO errorstats (Redis 6.2 and later). */
        private static Map<Integer, Map<String, Long>> errorStats() {
            Map<Integer, Map<String, Long>> stats = new HashMap<>();
            for (RedisServer node : cluster.nodes()) {
                Map<String, Long> counts = new HashMap<>();
                node.info("errorstats").forEach((field, value) -> {
                    if (field.startsWith("errorstat_")) {
                        counts.put(field.substring("errorstat_".length()),
                                Long.parseLong(value.substring(value.indexOf('=') + 1).split(",")[0]));
                    }
                });
                stats.put(node.port(), counts);
            }
            return stats;
        }
    }
}
