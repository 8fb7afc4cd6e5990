package dev.rmq.upgrade;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.dead.DeadMessage;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.KeyMigration;
import dev.rmq.internal.redis.LegacyKeys;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A client of this version started on what rmq left in Redis before its keys had a prefix: the data written by
 * commit 0f23a9c ({@code written-by-0f23a9c.txt}), and messages that a client without the prefix sends after the
 * first migration, as a client of the earlier version would.
 */
class LegacyKeysTests extends StandaloneRedisTest {

    private static final String FIXTURE = "written-by-0f23a9c.txt";
    private static final Instant YEAR_2100 = Instant.parse("2100-01-01T00:00:00Z");

    record Order(String id, int amount) {
    }

    /** The topics as the fixture's writer defined them. */
    private static List<TopicDefinition> fixtureTopics() {
        return List.of(
                TopicDefinition.builder("legacy-prio", TopicType.PRIORITY).slotAmount(2).maxRetries(3)
                        .backoff(BackoffPolicy.fixed(Duration.ofMillis(1))).build(),
                TopicDefinition.builder("legacy-merge", TopicType.RANGE_MERGE).slotAmount(1).build(),
                TopicDefinition.builder("legacy-fixed", TopicType.FIXED_TIME).slotAmount(1).build(),
                TopicDefinition.builder("legacy-fifo", TopicType.PRIORITY).slotAmount(1).fifo(true).build());
    }

    @Test
    void aClientStartedOnTheDataOfTheVersionBeforeThePrefixMovesItAllAndDeliversWhatThatVersionWould()
            throws Exception {
        List<String> written = LegacyFixture.load(redisson, FIXTURE);
        assertThat(written).contains("legacy-prio_1", "body{legacy-prio_1}", "prepare{legacy-merge_0}",
                "legacy-ns:legacy-prio_1");

        RmqClient rmq = RmqClient.builder(redisson).topics(fixtureTopics()).build();
        RmqClient namespaced = RmqClient.builder(redisson).namespace("legacy-ns").topic(fixtureTopics().get(0))
                .build();
        assertThat(keys()).as("nothing moves before a client's first call").containsExactlyInAnyOrderElementsOf(written);

        // each client's first call moves its topics' keys: none is left without the prefix, and each has a new name
        assertThat(rmq.admin().pauseState("legacy-fixed").pausedSlots()).isEqualTo(1);
        assertThat(namespaced.inspector().counts("legacy-prio").total().dueNow()).isEqualTo(1);
        assertThat(keys()).allMatch(key -> key.startsWith("rmq:"))
                .containsAll(written.stream().map(LegacyKeysTests::prefixed).toList());

        List<DeadMessage> dead = rmq.deadQueue().list("legacy-prio", 1, 0, 10);
        assertThat(dead).singleElement().satisfies(message -> {
            assertThat(message.key()).isEqualTo("p-dead");
            assertThat(message.lastError()).isEqualTo("bad data");
            assertThat(message.attempts()).isEqualTo(1);
        });

        try (Pulled<Order> prio = new Pulled<>(rmq, "legacy-prio")) {
            Map<String, PulledMessage<Order>> got = prio.acked(6);
            assertThat(got.keySet()).containsExactlyInAnyOrder("p-high", "p-other", "p-ttl-long", "p-low", "p-retry",
                    "p-inflight");
            assertThat(got.get("p-low").headers()).containsEntry("origin", "legacy");
            assertThat(got.get("p-low").payload()).isEqualTo(new Order("p-low", 10));
            assertThat(got.get("p-high").attempt()).isEqualTo(1);
            // the retry, and the delivery whose lease ran out while it was in flight, come again as second attempts
            assertThat(got.get("p-retry").attempt()).isEqualTo(2);
            assertThat(got.get("p-retry").lastError()).isEqualTo("first try failed");
            assertThat(got.get("p-inflight").attempt()).isEqualTo(2);
            // p-ttl-short expired long ago; p-later waits for 2100
            assertThat(prio.poll()).isEmpty();
            assertThat(rmq.inspector().peek("legacy-prio", 1, 0, 10)).extracting(StoredMessage::key)
                    .containsExactly("p-later");
        }
        try (Pulled<Order> fifo = new Pulled<>(rmq, "legacy-fifo")) {
            assertThat(fifo.inOrder(3)).containsExactly("q-3", "q-1", "q-2");
        }
        try (Pulled<Order> merge = new Pulled<>(rmq, "legacy-merge")) {
            Map<String, PulledMessage<Order>> got = merge.until(2);
            assertThat(got.keySet()).containsExactlyInAnyOrder("m-inflight", "m-wait");
            got.values().forEach(PulledMessage::ack);
        }
        rmq.admin().resume("legacy-fixed");
        try (Pulled<Order> fixed = new Pulled<>(rmq, "legacy-fixed")) {
            assertThat(fixed.until(1).keySet()).containsExactly("f-due");
            assertThat(rmq.inspector().peek("legacy-fixed", 0, 10)).singleElement().satisfies(message -> {
                assertThat(message.key()).isEqualTo("f-future");
                assertThat(message.dueTime(TopicType.FIXED_TIME)).contains(YEAR_2100);
            });
        }
        try (Pulled<Order> other = new Pulled<>(namespaced, "legacy-prio")) {
            assertThat(other.until(1).values()).singleElement().extracting(PulledMessage::payload)
                    .isEqualTo(new Order("n-one", 7));
        }
    }

    @Test
    void aClientWithTheEmptyPrefixUsesTheNamesWithoutOneAndMovesNothing() throws Exception {
        List<String> written = LegacyFixture.load(redisson, FIXTURE);
        RmqClient rmq = RmqClient.builder(redisson).keyPrefix("").topics(fixtureTopics()).build();
        try (Pulled<Order> fifo = new Pulled<>(rmq, "legacy-fifo")) {
            assertThat(fifo.inOrder(3)).containsExactly("q-3", "q-1", "q-2");
        }
        assertThat(keys()).noneMatch(key -> key.startsWith("rmq:")).contains("legacy-prio_1", "body{legacy-prio_1}");
        assertThat(written).contains("legacy-fifo_0");
    }

    @Test
    void whatAClientWithoutThePrefixSendsAfterTheFirstMigrationMovesLaterSaveKeysTheNewNamesHoldAndLiveLeases() {
        TopicDefinition topic = TopicDefinition.builder("mixed", TopicType.PRIORITY).slotAmount(1).fifo(true)
                .leaseTimeout(Duration.ofSeconds(2)).build();
        RmqClient current = RmqClient.builder(redisson).topic(topic).build();
        RmqClient earlier = RmqClient.builder(redisson).keyPrefix("").topic(topic).build();
        current.producer().send(OutgoingMessage.priority("mixed", new Order("dup", 1), 60).withKey("dup"));
        current.producer().send(OutgoingMessage.priority("mixed", new Order("live", 1), 70).withKey("live"));

        // under the old names: a delivery whose lease runs, with a send of its key parked behind it, one whose lease
        // ran out, and 2,500 waiting messages behind a key the new names hold; under the new names, a delivery too
        earlier.producer().send(OutgoingMessage.priority("mixed", new Order("held", 0), 900).withKey("held"));
        earlier.producer().send(OutgoingMessage.priority("mixed", new Order("stale", 0), 800).withKey("stale"));
        List<OutgoingMessage> sends = new ArrayList<>();
        sends.add(OutgoingMessage.priority("mixed", new Order("dup", 2), 50).withKey("dup"));
        for (int i = 0; i < 2_500; i++) {
            sends.add(OutgoingMessage.priority("mixed", new Order("m-" + i, i), 100 + i % 7).withKey("m-" + i));
        }
        try (Pulled<Order> holder = new Pulled<>(earlier, "mixed");
             Pulled<Order> liveHolder = new Pulled<>(current, "mixed")) {
            assertThat(liveHolder.until(1).keySet()).containsExactly("live");
            liveHolder.received().get("live").extend(Duration.ofSeconds(30));
            Map<String, PulledMessage<Order>> held = holder.until(2);
            assertThat(held.keySet()).containsExactlyInAnyOrder("held", "stale");
            held.get("held").extend(Duration.ofSeconds(30));
            held.get("held").reportProgress(30, "a third");
            held.get("stale").reportProgress(20, "a fifth");
            // a send of a key in flight waits in the store; the poll that takes it parks it behind the delivery (a
            // poll of another puller: one holds back its own polls of a FIFO slot while it has a delivery there)
            earlier.producer().send(OutgoingMessage.priority("mixed", new Order("held", 1), 900).withKey("held"));
            try (Pulled<Order> other = new Pulled<>(earlier, "mixed")) {
                assertThat(other.poll(1)).isEmpty();
            }
            assertThat(redis.command("HKEYS", "parked{mixed_0}")).isEqualTo(List.of("held"));
            earlier.producer().sendAll(sends);
            long staleUntil = held.get("stale").leaseDeadline().toEpochMilli();
            await().atMost(Duration.ofSeconds(10)).until(() -> redisTimeMs() > staleUntil);

            assertThat(migrateMixed()).singleElement().satisfies(outcome -> {
                assertThat(outcome.moved()).as("the waiting, and the delivery whose lease ran out").isEqualTo(2_501);
                assertThat(outcome.waitingLeft()).as("the key the new names hold").isEqualTo(1);
                assertThat(outcome.deadLeft()).isZero();
                assertThat(outcome.inFlightLeft()).isZero();
                assertThat(outcome.leasedLeft()).as("the delivery whose lease runs").isEqualTo(1);
            });
            assertThat(redis.command("ZCARD", "rmq:{mixed_0}")).isEqualTo(2_501L);
            assertThat(redis.command("ZRANGE", "mixed_0", "0", "-1")).asString().endsWith("dup]");
            assertThat(redis.command("HKEYS", "body{mixed_0}")).isEqualTo(List.of("dup"));
            assertThat(redis.command("ZRANGE", "rmq:prepare{mixed_0}", "0", "-1")).asList()
                    .containsExactlyInAnyOrder("live", "stale");
            // the delivery whose lease runs stays, with what is parked behind it, for its holder to end
            assertThat(redis.command("ZRANGE", "prepare{mixed_0}", "0", "-1")).isEqualTo(List.of("held"));
            assertThat(redis.command("HKEYS", "parked{mixed_0}")).isEqualTo(List.of("held"));
            // and each delivery's progress goes where the delivery went
            assertThat(redis.command("HKEYS", "progress{mixed_0}")).isEqualTo(List.of("held"));
            assertThat(redis.command("HKEYS", "rmq:progress{mixed_0}")).isEqualTo(List.of("stale"));
            assertThat(held.get("held").ack()).isEqualTo(AckOutcome.COMMITTED);
            assertThat(redis.command("EXISTS", "progress{mixed_0}")).isEqualTo(0L);
            assertThatThrownBy(() -> held.get("stale").ack()).isInstanceOf(LeaseExpiredException.class);
            assertThat(liveHolder.received().get("live").ack()).isEqualTo(AckOutcome.COMMITTED);
        }
        // the ending unparked the send behind it, which moves now; the key both names hold stays
        assertThat(migrateMixed()).containsExactly(new LegacyKeys.Outcome("mixed", 0, 1, 1, 0, 0, 0));
        try (Pulled<Order> consumer = new Pulled<>(current, "mixed")) {
            List<String> order = consumer.inOrder(2_503);
            assertThat(order.get(0)).isEqualTo("held");
            assertThat(order).doesNotHaveDuplicates().contains("dup", "stale", "m-0", "m-2499")
                    .doesNotContain("live");
        }
    }

    @Test
    void aClientLooksAgainAfterAWhileAndMovesWhatAClientWithoutThePrefixSentMeanwhile() {
        TopicDefinition topic = TopicDefinition.builder("again", TopicType.PRIORITY).slotAmount(1).build();
        KeyLayout layout = new KeyLayout(KeyLayout.DEFAULT_PREFIX, "");
        KeyMigration hourly = new KeyMigration(new LegacyKeys(redisson, layout), List.of(topic), Duration.ofHours(1));
        KeyMigration often = new KeyMigration(new LegacyKeys(redisson, layout), List.of(topic), Duration.ofMillis(200));
        hourly.ready().join();
        often.ready().join();
        RmqClient earlier = RmqClient.builder(redisson).keyPrefix("").topic(topic).build();
        earlier.producer().send(OutgoingMessage.priority("again", new Order("late", 1), 100).withKey("late"));

        assertThat(hourly.ready()).as("a call does not wait for a move once one was done").isDone();
        assertThat(redis.command("ZRANGE", "again_0", "0", "-1")).as("not moved before the hour").isEqualTo(
                List.of("late"));
        // the first call after the interval starts a move
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            often.ready();
            return redis.command("EXISTS", "again_0").equals(0L);
        });
        assertThat(redis.command("ZRANGE", "rmq:{again_0}", "0", "-1")).isEqualTo(List.of("late"));
        assertThat(redis.command("HKEYS", "rmq:body{again_0}")).isEqualTo(List.of("late"));
    }

    @Test
    void aResumeThatIsAClientsFirstCallResumesATopicPausedUnderTheOldNames() throws Exception {
        LegacyFixture.load(redisson, FIXTURE);
        RmqClient rmq = RmqClient.builder(redisson).topics(fixtureTopics()).build();
        assertThat(rmq.admin().resume("legacy-fixed").pausedSlots()).isZero();
        assertThat(keys()).doesNotContain("paused{legacy-fixed_0}", "rmq:paused{legacy-fixed_0}");
    }

    private static List<LegacyKeys.Outcome> migrateMixed() {
        return new LegacyKeys(redisson, new KeyLayout(KeyLayout.DEFAULT_PREFIX, "")).migrate(List.of("mixed"),
                List.of(1)).join();
    }

    private List<String> keys() {
        return ((List<?>) redis.command("KEYS", "*")).stream().map(String::valueOf).collect(Collectors.toList());
    }

    /** The name of a key without the prefix, given one. */
    private static String prefixed(String legacy) {
        return legacy.contains("{") ? "rmq:" + legacy : "rmq:{" + legacy + "}";
    }

    /** A puller of one topic, polled until it has what a test waits for. */
    private static final class Pulled<T> implements AutoCloseable {
        private final RmqPuller<Order> puller;
        private final String topic;
        private final Map<String, PulledMessage<Order>> received = new HashMap<>();

        Pulled(RmqClient rmq, String topic) {
            this.topic = topic;
            this.puller = rmq.puller(Order.class).topics(topic).build();
            puller.start();
        }

        List<PulledMessage<Order>> poll() {
            return poll(100);
        }

        List<PulledMessage<Order>> poll(int most) {
            return puller.poll(most, Duration.ofMillis(500), topic);
        }

        /** Polls until {@code n} distinct keys came, for at most 20 s, taking no more; each key's latest delivery. */
        Map<String, PulledMessage<Order>> until(int n) {
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (received.size() < n && System.nanoTime() < end) {
                poll(n - received.size()).forEach(m -> received.put(m.key(), m));
            }
            return received;
        }

        /**
         * Polls until {@code n} distinct keys came, for at most 20 s, acknowledging each as it comes: a slot gives its
         * next messages once its last ones have ended, and one retried with a backoff of a millisecond may come due
         * only after the first pull of its slot.
         */
        Map<String, PulledMessage<Order>> acked(int n) {
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (received.size() < n && System.nanoTime() < end) {
                for (PulledMessage<Order> m : poll(n - received.size())) {
                    received.put(m.key(), m);
                    m.ack();
                }
            }
            return received;
        }

        /** The keys of the next {@code n} deliveries, in the order they came, each acknowledged. */
        List<String> inOrder(int n) {
            List<String> keys = new ArrayList<>();
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (keys.size() < n && System.nanoTime() < end) {
                for (PulledMessage<Order> m : poll()) {
                    keys.add(m.key());
                    m.ack();
                }
            }
            return keys;
        }

        Map<String, PulledMessage<Order>> received() {
            return received;
        }

        @Override
        public void close() {
            puller.close();
        }
    }
}
