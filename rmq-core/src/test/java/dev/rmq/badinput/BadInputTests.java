package dev.rmq.badinput;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.dead.DeadMessage;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.producer.RmqProducer;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Bad input gets a clear error naming what was wrong, and nothing already queued is lost or changed: an invalid
 * topic name or slot amount, a priority of 16 or less, a fixed time too far in the past, a time range of zero, a
 * null or oversized payload, an unknown topic or a type that does not match it, conflicting definitions, bytes in
 * a slot that do not decode, and Redis or ZooKeeper down at start or mid-run. Each test queues messages first and
 * compares a dump of Redis before and after.
 */
class BadInputTests extends StandaloneRedisTest {

    private RmqClient rmq;
    private RmqProducer producer;
    private Map<String, String> before;

    @BeforeEach
    void queueSomething() {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(4).build())
                .topic(TopicDefinition.builder("tasks", TopicType.PRIORITY).slotAmount(4).build())
                .topic(TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(4).build())
                .maxPayloadBytes(1024)
                .build();
        producer = rmq.producer();
        long now = redisTimeMs();
        producer.send(OutgoingMessage.fixedTime("orders", "o1", Instant.ofEpochMilli(now + 600_000)).withKey("o1"));
        producer.send(OutgoingMessage.priority("tasks", "t1", 50).withKey("t1").withHeader("h", "v"));
        producer.send(OutgoingMessage.rangeMerge("prices", "p1", Duration.ofMinutes(10)).withKey("p1"));
        before = RedisSnapshot.of(redis);
    }

    private void assertNothingQueuedChanged() {
        assertThat(RedisSnapshot.of(redis)).isEqualTo(before);
    }

    @Test
    void anInvalidTopicNameIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("or{ders}", TopicType.PRIORITY).build())
                .withMessageStartingWith("topic name 'or{ders}' is invalid: it contains a brace");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("my orders", TopicType.PRIORITY).build())
                .withMessageStartingWith("topic name 'my orders' is invalid: it contains whitespace");
        assertThatIllegalArgumentException().isThrownBy(() -> RmqClient.builder(redisson).namespace("a b").build())
                .withMessageStartingWith("namespace 'a b' is invalid");
        assertNothingQueuedChanged();
    }

    @Test
    void aSlotAmountThatIsNotAPowerOfTwoIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(12).build())
                .withMessage("slotAmount of topic 'orders' must be a power of two in 1..16384 (1, 2, 4, 8, ...), was 12");
        assertNothingQueuedChanged();
    }

    @Test
    void aPriorityOfSixteenOrLessIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> producer.send(OutgoingMessage.priority("tasks", "t1", 16).withKey("t1")))
                .withMessage("priority must be in 17..9007199254740992 (values up to 16 are reserved), was 16");
        assertThatIllegalArgumentException().isThrownBy(() -> producer.reprioritize(MessageRef.of("tasks", "t1"), 0))
                .withMessageContaining("was 0");
        assertNothingQueuedChanged();
    }

    @Test
    void aFixedTimeFurtherInThePastThanTheLateToleranceIsRefused() {
        Instant past = Instant.ofEpochMilli(redisTimeMs() - 15_000);
        assertThatIllegalArgumentException().isThrownBy(() -> producer.send(OutgoingMessage.fixedTime("orders", "x", past).withKey("o1")))
                .withMessageContaining("fixed time " + past + " of key \"o1\" in topic 'orders' is ")
                .withMessageContaining("more than the topic's late tolerance of 10000 ms");
        assertThatIllegalArgumentException().isThrownBy(() -> producer.reschedule(MessageRef.of("orders", "o1"), past))
                .isInstanceOf(dev.rmq.producer.TimeInPastException.class)
                .withMessageContaining("fixed time " + past + " of key \"o1\" in topic 'orders' is ")
                .withMessageContaining("more than the topic's late tolerance of 10000 ms");
        assertNothingQueuedChanged();
    }

    @Test
    void aTimeRangeOfZeroOrLessIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "p", Duration.ZERO))
                .withMessage("timeRange must be at least 1 ms, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "p", Duration.ofSeconds(-1)))
                .withMessage("timeRange must be at least 1 ms, was PT-1S");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "p", null))
                .withMessage("timeRange must not be null");
        assertNothingQueuedChanged();
    }

    @Test
    void aNullOrOversizedPayloadIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("tasks", null, 30))
                .withMessage("payload of a message to topic 'tasks' must not be null");
        assertThatThrownBy(() -> producer.send(OutgoingMessage.priority("tasks", new byte[1100], 30).withKey("t1")))
                .isInstanceOf(PayloadTooLargeException.class)
                .hasMessage("message to topic 'tasks' is 1143 bytes with its headers; the limit is 1024 bytes (RmqClient maxPayloadBytes)");
        assertThatThrownBy(() -> producer.sendAll(List.of(OutgoingMessage.priority("tasks", "ok", 30).withKey("new"),
                OutgoingMessage.priority("tasks", "x".repeat(2000), 30).withKey("big"))))
                .isInstanceOf(PayloadTooLargeException.class);
        assertNothingQueuedChanged();
    }

    @Test
    void anUnknownTopicIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> producer.send(OutgoingMessage.priority("task", "x", 30)))
                .isInstanceOf(UnknownTopicException.class)
                .hasMessage("unknown topic 'task'; defined topics are [orders, prices, tasks]");
        assertThatThrownBy(() -> rmq.deadQueue().count("task")).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> rmq.container("task", String.class, m -> null)).isInstanceOf(UnknownTopicException.class);
        assertNothingQueuedChanged();
    }

    @Test
    void aTypeThatDoesNotMatchTheTopicIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> producer.send(OutgoingMessage.priority("orders", "x", 30).withKey("o1")))
                .withMessage("topic 'orders' is a FIXED_TIME topic; a PRIORITY message cannot be sent to it");
        assertThatIllegalArgumentException().isThrownBy(() -> producer.reprioritize(MessageRef.of("orders", "o1"), 50))
                .withMessageContaining("topic 'orders' is a FIXED_TIME topic");
        assertThatIllegalArgumentException().isThrownBy(() -> producer.reschedule(MessageRef.of("tasks", "t1"), null))
                .withMessage("dueTime must not be null");
        assertNothingQueuedChanged();
    }

    @Test
    void conflictingDefinitionsAreRefusedInOneApplicationAndAcrossApplications() throws Exception {
        TopicDefinition fixed = TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(4).build();
        TopicDefinition priority = TopicDefinition.builder("orders", TopicType.PRIORITY).slotAmount(4).build();
        assertThatIllegalArgumentException().isThrownBy(() -> TopicRegistry.of(fixed, priority))
                .withMessageContaining("topic 'orders' is defined twice, differently");
        try (TestingServer zookeeper = new TestingServer(true);
             CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
            curator.start();
            RmqCoordinator.builder(curator, rmq).origin("app A").build().start();
            RmqClient other = RmqClient.builder(redisson).topic(priority).build();
            assertThatThrownBy(() -> RmqCoordinator.builder(curator, other).origin("app B").build().start())
                    .isInstanceOf(TopicConflictException.class)
                    .hasMessageContaining("FIXED_TIME with 4 slots by app A, but PRIORITY with 4 slots by app B");
        }
        assertNothingQueuedChanged();
    }

    /** A payload type of the tasks topic, for the decoding test. */
    record Task(String id) {
    }

    @Test
    void undecodableBytesInASlotGoToDeadWithTheReasonAndTheRestIsConsumed() {
        int slot = rmq.topics().require("tasks").slotOf("t1");
        producer.send(OutgoingMessage.priority("tasks", new Task("t2"), 40).withKey("t2").withSlotBasis("t1"));
        redis.command("ZADD", "rmq:{tasks_" + slot + "}", "99", "junk");
        redis.command("HSET", "rmq:body{tasks_" + slot + "}", "junk", "\u0001not an envelope");
        Map<String, String> otherTopics = otherThanTasks(RedisSnapshot.of(redis));
        Map<String, Task> consumed = new ConcurrentHashMap<>();
        RmqConsumerContainer<Task> container = rmq.container("tasks", Task.class,
                RmqHandler.committing(m -> consumed.put(m.key(), m.payload()))).build();
        container.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count("tasks") == 2 && consumed.size() == 1);
        } finally {
            container.stop();
        }
        // the bytes that are no envelope, and the payload "t1" that is no Task, are dead with their reasons
        List<DeadMessage> dead = rmq.deadQueue().list("tasks", slot, 0, 10);
        assertThat(dead).extracting(DeadMessage::key).containsExactlyInAnyOrder("junk", "t1");
        assertThat(dead).filteredOn(d -> d.key().equals("junk")).singleElement()
                .satisfies(d -> assertThat(d.lastError()).startsWith("cannot decode: ").contains("envelope"));
        assertThat(dead).filteredOn(d -> d.key().equals("t1")).singleElement().satisfies(d -> {
            assertThat(d.lastError()).startsWith("cannot decode: ");
            assertThat(d.payloadText()).isEqualTo("t1");
            assertThat(d.headers()).containsEntry("h", "v");
        });
        // the good message of the same slot was consumed, and the other topics were not touched
        assertThat(consumed).containsExactly(Map.entry("t2", new Task("t2")));
        assertThat(otherThanTasks(RedisSnapshot.of(redis))).isEqualTo(otherTopics);
    }

    private static Map<String, String> otherThanTasks(Map<String, String> snapshot) {
        Map<String, String> others = new java.util.TreeMap<>(snapshot);
        others.keySet().removeIf(key -> key.contains("tasks_"));
        return others;
    }

    @Test
    void redisDownMidRunFailsSendsFastAndConsumersBackOffThenResumeWithNothingLost() throws Exception {
        try (RedisServer durable = RedisServer.start(RedisServerOptions.defaults()
                .withArgs("--appendonly", "yes", "--appendfsync", "always"))) {
            RedissonClient client = Fixtures.redisson(durable);
            try {
                RmqClient app = RmqClient.builder(client).topic(TopicDefinition.builder("jobs", TopicType.PRIORITY)
                        .slotAmount(2).leaseTimeout(Duration.ofSeconds(2)).build()).build();
                Map<String, Integer> consumed = new ConcurrentHashMap<>(); // key -> attempt of its latest handling
                java.util.concurrent.CountDownLatch handling = new java.util.concurrent.CountDownLatch(1);
                java.util.concurrent.CountDownLatch redisStopped = new java.util.concurrent.CountDownLatch(1);
                RmqConsumerContainer<String> container = app.container("jobs", String.class, m -> {
                    if (m.key().equals("in-flight") && m.attempt() == 1) {
                        handling.countDown();
                        redisStopped.await();
                    }
                    consumed.put(m.key(), m.attempt());
                    return null;
                }).build();
                container.start();
                app.producer().send(OutgoingMessage.priority("jobs", "a", 30).withKey("before"));
                await().atMost(Duration.ofSeconds(10)).until(() -> consumed.containsKey("before"));
                app.producer().send(OutgoingMessage.priority("jobs", "b", 30).withKey("in-flight"));
                await().atMost(Duration.ofSeconds(10)).until(() -> handling.getCount() == 0);

                // Redis goes away while the container runs and a handler holds a message: its commit fails
                durable.stop();
                redisStopped.countDown();
                assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
                        assertThatThrownBy(() -> app.producer().send(OutgoingMessage.priority("jobs", "c", 30).withKey("during")))
                                .isInstanceOf(RmqUnavailableException.class)
                                .hasMessageStartingWith("Redis did not answer SEND on jobs_"));
                durable.restart();

                // the same container resumes by itself. The commit either failed, and the message comes back once
                // its lease is over, or Redisson's retries carried it over the restart; either way it is done
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> !app.producer().exists(MessageRef.of("jobs", "in-flight")));
                assertThat(consumed.get("in-flight")).isBetween(1, 2);
                app.producer().send(OutgoingMessage.priority("jobs", "d", 30).withKey("after"));
                await().atMost(Duration.ofSeconds(10)).until(() -> consumed.containsKey("after"));
                assertThat(consumed).doesNotContainKey("during");
                assertThat(container.isRunning()).isTrue();
                container.stop();
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void redisDownAtStartFailsSendsClearlyAndConsumersStartOnceItIsUp() {
        try (RedisServer late = RedisTestServers.newStandalone()) {
            late.stop();
            Config config = new Config().setLazyInitialization(true);
            config.useSingleServer().setAddress(late.address()).setRetryAttempts(1).setRetryInterval(200)
                    .setConnectTimeout(500).setTimeout(1000);
            RedissonClient client = Redisson.create(config);
            try {
                RmqClient app = RmqClient.builder(client).topic(TopicDefinition.builder("jobs", TopicType.PRIORITY)
                        .slotAmount(1).build()).build();
                Set<String> consumed = ConcurrentHashMap.newKeySet();
                RmqConsumerContainer<String> container = app.container("jobs", String.class,
                        RmqHandler.committing(m -> consumed.add(m.key()))).build();
                container.start();
                try {
                    assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
                            assertThatThrownBy(() -> app.producer().send(OutgoingMessage.priority("jobs", "x", 30).withKey("k")))
                                    .isInstanceOf(RmqUnavailableException.class)
                                    .hasMessageContaining("Redis did not answer SEND on jobs_0"));
                    late.restart();
                    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                        app.producer().send(OutgoingMessage.priority("jobs", "x", 30).withKey("k"));
                        return true;
                    });
                    await().atMost(Duration.ofSeconds(30)).until(() -> consumed.contains("k"));
                } finally {
                    container.stop();
                }
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void zooKeeperDownAtStartFailsCoordinationStartUpClearly() throws Exception {
        int port;
        try (TestingServer stopped = new TestingServer(true)) {
            port = stopped.getPort();
        }
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString("127.0.0.1:" + port)
                .connectionTimeoutMs(500).sessionTimeoutMs(2000).retryPolicy(new RetryOneTime(100)).build()) {
            curator.start();
            RmqCoordinator coordinator = RmqCoordinator.builder(curator, rmq).build();
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(coordinator::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("cannot register topic 'orders' at /rmq/topics/orders in ZooKeeper 127.0.0.1:" + port
                            + " (is it reachable?)"));
        }
        assertNothingQueuedChanged();
    }
}
