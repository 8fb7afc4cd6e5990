package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.FreePorts;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Membership and ZooKeeper failures while messages flow, on a real 3-server ZooKeeper ensemble and a real
 * Redis. In every scenario: no two workers ever run handlers of one slot at the same time, no message is
 * lost, and at the end every slot is owned and the slots are balanced again.
 */
class ExclusivityScenarioTests {

    private static final int SLOTS = 16;
    private static final TopicDefinition TOPIC = TopicDefinition.builder("flow", TopicType.PRIORITY).slotAmount(SLOTS)
            .leaseTimeout(Duration.ofSeconds(3)).build();

    /**
     * A topic whose lease outlasts the ZooKeeper session, and a handler between the two: it is still
     * running when its worker's session has expired and another worker takes the slot.
     */
    private static final TopicDefinition LONG_LEASE_TOPIC = TopicDefinition.builder("flow", TopicType.PRIORITY)
            .slotAmount(SLOTS).leaseTimeout(Duration.ofSeconds(12)).build();
    private static final Duration SLOW_HANDLER = Duration.ofMillis(ZooKeeperNode.SESSION_TIMEOUT_MS + 3000);

    private static RedisServer redis;
    private static TestingCluster zookeeper;

    private final OverlapLog log = new OverlapLog();
    private final Set<String> sent = ConcurrentHashMap.newKeySet();
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();
    /** Handlers running right now, counted until their message is recorded as consumed. */
    private final AtomicInteger handlersRunning = new AtomicInteger();
    /** Which node started each run of a slow message, by "key#attempt". */
    private final Map<String, String> slowRuns = new ConcurrentHashMap<>();
    private final List<ZooKeeperNode> nodes = new ArrayList<>();
    private final AtomicBoolean producing = new AtomicBoolean();
    private Thread producer;
    private RedissonClient producerRedis;

    @BeforeAll
    static void servers() throws Exception {
        redis = RedisTestServers.newStandalone();
        // lets the test ask each server for its role with the "srvr" four-letter word
        System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
        // nine ports, no two the same: Curator's own choice, one port at a time, can repeat one
        int[] ports = FreePorts.distinct(9);
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            int at = (id - 1) * 3;
            specs.add(new InstanceSpec(null, ports[at], ports[at + 1], ports[at + 2], true, id));
        }
        zookeeper = new TestingCluster(specs);
        zookeeper.start();
    }

    @AfterAll
    static void stopServers() throws Exception {
        ZooKeeperNode.closeAll(zookeeper, redis);
    }

    @BeforeEach
    void clean() throws Exception {
        redis.command("FLUSHALL");
        ZooKeeperNode.deleteRoot(zookeeper.getConnectString());
        producerRedis = Fixtures.redisson(redis);
    }

    @AfterEach
    void stopAll() throws Exception {
        stopProducing();
        for (ZooKeeperNode node : nodes) {
            node.close();
        }
        producerRedis.shutdown();
        for (InstanceSpec spec : zookeeper.getInstances()) {
            zookeeper.restartServer(spec);
        }
    }

    private RmqHandler<String> handler(String node) {
        return m -> {
            long work = m.key().startsWith("slow") ? SLOW_HANDLER.toNanos()
                    : ThreadLocalRandom.current().nextLong(200_000, 3_000_000);
            if (m.key().startsWith("slow")) {
                slowRuns.put(m.key() + "#" + m.attempt(), node);
            }
            handlersRunning.incrementAndGet();
            try {
                log.record(m.slot(), node + "/" + Thread.currentThread().getName(), () -> LockSupport.parkNanos(work));
                consumed.add(m.key());
            } finally {
                handlersRunning.decrementAndGet();
            }
            return ConsumeResult.success();
        };
    }

    private ZooKeeperNode join(String name) {
        return join(name, TOPIC);
    }

    private ZooKeeperNode join(String name, TopicDefinition topic) {
        ZooKeeperNode node = new ZooKeeperNode(name, redis.address(), zookeeper.getConnectString(), topic, 2, handler(name)).start();
        nodes.add(node);
        return node;
    }

    private void leave(ZooKeeperNode node) {
        nodes.remove(node);
        node.close();
    }

    private void startProducing() {
        RmqClient rmq = RmqClient.builder(producerRedis).topic(TOPIC).build();
        AtomicInteger next = new AtomicInteger();
        producing.set(true);
        producer = new Thread(() -> {
            while (producing.get()) {
                String key = "m" + next.incrementAndGet();
                try {
                    rmq.producer().send(OutgoingMessage.priority("flow", key, 20 + next.get() % 50).withKey(key));
                    sent.add(key);
                } catch (RuntimeException e) {
                    // a failed send is not a sent message; the test only accounts for acknowledged sends
                }
                LockSupport.parkNanos(3_000_000);
            }
        }, "test-producer");
        producer.start();
    }

    private void stopProducing() throws InterruptedException {
        producing.set(false);
        if (producer != null) {
            producer.join(5000);
        }
    }

    private void awaitMessagesFlowing() {
        int before = consumed.size();
        await().atMost(Duration.ofSeconds(20)).until(() -> consumed.size() > before + 20);
    }

    /** Every slot owned per the plan, and every worker at ⌊n/w⌋ or ⌈n/w⌉. */
    private void awaitBalanced() {
        int workers = nodes.size() * 2;
        int floor = SLOTS / workers;
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            ZooKeeperNode any = nodes.get(0);
            Map<Integer, String> owners = any.coordinator.owners("flow");
            assertThat(owners).hasSize(SLOTS);
            assertThat(owners).isEqualTo(any.coordinator.plan("flow"));
            assertThat(owners.values().stream().distinct().count()).isEqualTo(Math.min(workers, SLOTS));
            Map<String, Long> counts = new java.util.HashMap<>();
            owners.values().forEach(w -> counts.merge(w, 1L, Long::sum));
            assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween((long) floor, (long) floor + 1));
            int held = nodes.stream().mapToInt(n -> n.container.ownedSlots().size()).sum();
            assertThat(held).isEqualTo(SLOTS);
        });
    }

    private void assertNothingLostAndNoOverlap() throws InterruptedException {
        stopProducing();
        assertThat(sent).isNotEmpty();
        await().atMost(Duration.ofSeconds(60)).until(() -> consumed.containsAll(sent));
        assertThat(log.overlaps()).isEmpty();
    }

    @Test
    void theCheckerSeesOverlapsWhenExclusivityIsOff() {
        // a backlog in every slot, so two uncoordinated containers poll the same slots at the same time
        RmqClient loader = RmqClient.builder(producerRedis).topic(TOPIC).build();
        List<OutgoingMessage> backlog = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            backlog.add(OutgoingMessage.priority("flow", "b" + i, 20 + i % 50).withKey("b" + i));
        }
        loader.producer().sendAll(backlog);
        List<RmqConsumerContainer<String>> local = new ArrayList<>();
        List<RedissonClient> clients = new ArrayList<>();
        try {
            for (String name : List.of("x", "y")) {
                RedissonClient client = Fixtures.redisson(redis);
                clients.add(client);
                RmqConsumerContainer<String> container = RmqClient.builder(client).topic(TOPIC).build()
                        .container("flow", String.class, handler(name))
                        .settings(ConsumerSettings.DEFAULTS.withConcurrency(2).withBatchSize(8)).build();
                local.add(container);
            }
            local.forEach(RmqConsumerContainer::start);
            await().atMost(Duration.ofSeconds(30)).until(() -> !log.overlaps().isEmpty());
        } finally {
            local.forEach(RmqConsumerContainer::stop);
            clients.forEach(RedissonClient::shutdown);
        }
    }

    @Test
    void workersJoiningOneByOneTakeOverSlotsWithoutOverlap() throws InterruptedException {
        join("a");
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        join("b");
        awaitBalanced();
        awaitMessagesFlowing();
        join("c");
        awaitBalanced();
        awaitMessagesFlowing();
        assertNothingLostAndNoOverlap();
    }

    @Test
    void workersLeavingGracefullyHandTheirSlotsOverWithoutOverlap() throws InterruptedException {
        join("a");
        join("b");
        ZooKeeperNode c = join("c");
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        leave(c);
        awaitBalanced();
        awaitMessagesFlowing();
        leave(nodes.get(1));
        awaitBalanced();
        awaitMessagesFlowing();
        assertNothingLostAndNoOverlap();
    }

    @Test
    void anExpiredSessionFencesTheWorkerAndItsSlotsMoveWithoutOverlap() throws Exception {
        join("a");
        ZooKeeperNode b = join("b");
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        b.expireSession();
        awaitMessagesFlowing();
        awaitBalanced();
        assertNothingLostAndNoOverlap();
    }

    @Test
    void aWorkerCutOffInTheMiddleOfAMessageKeepsItsSlotUntilItsLeaseIsOver() throws Exception {
        ZooKeeperNode a = join("a", LONG_LEASE_TOPIC);
        ZooKeeperNode b = join("b", LONG_LEASE_TOPIC);
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        RmqClient.builder(producerRedis).topic(TOPIC).build().producer()
                .send(OutgoingMessage.priority("flow", "slow", 1000).withKey("slow"));
        await().atMost(Duration.ofSeconds(10)).until(() -> slowRuns.containsKey("slow#1"));
        ZooKeeperNode cutOff = slowRuns.get("slow#1").equals("a") ? a : b;

        // the session ends while the slow handler runs; once it has expired on the server the other node takes
        // the slot, and must not poll it before the cut-off node's lease is over, when its handler has finished
        cutOff.expireSession();
        awaitMessagesFlowing();
        awaitBalanced();
        assertNothingLostAndNoOverlap();
    }

    @Test
    void killingTheZooKeeperLeaderDoesNotBreakExclusivity() throws Exception {
        join("a");
        join("b");
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        InstanceSpec leader = leader();
        zookeeper.killServer(leader);
        awaitMessagesFlowing();
        zookeeper.restartServer(leader);
        awaitBalanced();
        awaitMessagesFlowing();
        assertNothingLostAndNoOverlap();
    }

    @Test
    void losingAndRegainingTheQuorumStopsThenResumesConsumptionWithoutOverlap() throws Exception {
        join("a");
        join("b");
        awaitBalanced();
        startProducing();
        awaitMessagesFlowing();
        List<InstanceSpec> specs = new ArrayList<>(zookeeper.getInstances());
        zookeeper.killServer(specs.get(0));
        zookeeper.killServer(specs.get(1));
        // until the last server notices it lost its quorum, a client may still reconnect to it and resume
        await().atMost(Duration.ofSeconds(30)).until(() -> !serving(specs.get(2)));
        // without a quorum the workers must stop: they give up polling every slot, and nothing is consumed;
        // a handler that had started before its slot was revoked may finish, and then the slot leaves the worker
        await().atMost(Duration.ofSeconds(40)).until(() -> nodes.stream().allMatch(n -> n.container.heldSlots().isEmpty()));
        assertThat(handlersRunning.get()).as("handlers still running once every slot was let go").isZero();
        int afterStall = consumed.size();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> consumed.size() == afterStall);
        assertThat(sent.size()).as("the producer kept sending to Redis").isGreaterThan(afterStall);
        zookeeper.restartServer(specs.get(0));
        zookeeper.restartServer(specs.get(1));
        awaitBalanced();
        awaitMessagesFlowing();
        assertNothingLostAndNoOverlap();
    }

    private static InstanceSpec leader() {
        for (InstanceSpec spec : zookeeper.getInstances()) {
            if (srvr(spec).contains("Mode: leader")) {
                return spec;
            }
        }
        throw new IllegalStateException("the ensemble has no leader");
    }

    private static boolean serving(InstanceSpec spec) {
        return srvr(spec).contains("Mode: ");
    }

    /** The server's own report of its state, or an empty string when it does not answer. */
    private static String srvr(InstanceSpec spec) {
        try (Socket socket = new Socket("127.0.0.1", spec.getPort())) {
            socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }
}
