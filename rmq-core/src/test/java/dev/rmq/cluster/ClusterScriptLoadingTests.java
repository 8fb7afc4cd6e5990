package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.embedded.RedisServer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Calls and batches load the scripts a master lost, and run each script once. */
class ClusterScriptLoadingTests extends ClusterFixture {

    /**
     * With no script known to any master, a single call meets NOSCRIPT (or an unknown function), the scripts are
     * loaded on every master, and the call is repeated. Only single calls here: batches are the subject of the
     * next test.
     */
    @Test
    void singleCallsLoadMissingScriptsOnEveryMasterWithoutOtherErrors() {
        TopicDefinition topic = freshTopic("cluster-fallback", TopicType.RANGE_MERGE);
        String name = topic.name();
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        RmqProducer producer = rmq.producer();
        RmqDeadQueue deadQueue = rmq.deadQueue();
        producer.exists(ref(name, "loaded-before-the-flush"));
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
            String forgotten = Fixtures.forgottenScriptError(cluster.masters().get(0));
            assertThat(errors.counted(forgotten)).as("%s answers, each followed by a load", forgotten).isPositive();
            errors.assertNone(recorder, forgotten);
        } finally {
            errors.close();
            loadScriptsOnEveryMaster();
        }
    }

    /**
     * After a failover or restart one master may not know the scripts while the client believes all do.
     * Redisson then fails every reply of a multi-master batch with that master's NOSCRIPT (or unknown
     * function), including the
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
                Fixtures.forgetScripts(forgetful);
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
                    SlotKeys keys = new KeyLayout("").slot(name, slot);
                    for (int j = 0; j < 5; j++) {
                        masterOf(keys).command("ZADD", keys.dead(), "1", "d-" + j);
                        masterOf(keys).command("HSET", keys.deadBody(), "d-" + j, "dead");
                    }
                }
                Fixtures.forgetScripts(forgetful);
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
}
