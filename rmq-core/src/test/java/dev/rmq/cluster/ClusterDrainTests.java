package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.embedded.RedisServer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A drained topic leaves no key behind on any master. */
class ClusterDrainTests extends ClusterFixture {

    @ParameterizedTest(name = "{0}")
    @EnumSource(TopicType.class)
    void leavesNoKeyBehindOnAnyMasterOnceAllIsConsumedAndTheDeadArePurged(TopicType type) {
        TopicDefinition topic = freshTopic(drainTopic(type), type);
        String name = topic.name();
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
                SlotKeys keys = new KeyLayout("").slot(name, slot);
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
                    .containsEntry("inflight", 0L).containsEntry("delayed", 0L).containsEntry("parked", 0L)
                    .containsEntry("expiry", 0L)
                    .containsEntry("dead", (long) recorder.poison.size())
                    .containsEntry("deadbody", (long) recorder.poison.size());

            assertThat(rmq.deadQueue().purge(name)).isEqualTo(recorder.poison.size());

            assertNothingLeftBehind(topic);
            errors.assertNone(recorder);
        } finally {
            errors.close();
        }
    }
}
