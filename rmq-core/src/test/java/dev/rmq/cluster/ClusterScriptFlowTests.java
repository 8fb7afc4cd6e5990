package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Every rmq script runs on the Cluster, for every type, without CROSSSLOT or MOVED errors. */
class ClusterScriptFlowTests extends ClusterFixture {

    @ParameterizedTest(name = "{0}")
    @EnumSource(TopicType.class)
    void everyScriptRunsOnTheClusterWithoutCrossSlotErrors(TopicType type) {
        TopicDefinition topic = freshTopic(flowTopic(type), type);
        String name = topic.name();
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
                List<Recorder.Delivered> successes = recorder.succeeded.get(key);
                assertThat(successes).as("successful deliveries of %s", key).hasSize(1);
                Recorder.Delivered success = successes.get(0);
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
                Recorder.Delivered success = recorder.succeeded.get(key).get(0);
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
}
