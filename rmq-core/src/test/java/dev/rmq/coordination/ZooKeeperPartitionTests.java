package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One instance loses ZooKeeper (its connection stalls, through a proxy, for longer than the session timeout)
 * while it still reaches Redis. It must stop taking messages at SUSPENDED, finish and acknowledge what it holds
 * while its fencing token is still valid, and release the rest, so that the instance that takes its slots over
 * starts at once instead of waiting for leases: the longest gap of a slot stays within the session timeout plus
 * the longest handler, far below the lease. One handler per slot at every instant, throughout.
 */
class ZooKeeperPartitionTests {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperPartitionTests.class);
    private static final int SLOTS = 4;
    private static final Duration LEASE = Duration.ofSeconds(10);
    /** Handlers take 150 ms to 1 s. */
    private static final int HANDLER_MIN_MS = 150;
    private static final int HANDLER_MAX_MS = 1_000;
    private static final TopicDefinition TOPIC = TopicDefinition.builder("partitioned", TopicType.PRIORITY)
            .slotAmount(SLOTS).leaseTimeout(LEASE).build();

    private RedisServer redis;
    private TestingServer zookeeper;
    private TcpProxy partitionedLink;
    private final List<ZooKeeperNode> nodes = new ArrayList<>();
    private final AtomicInteger[] running = new AtomicInteger[SLOTS];
    private final AtomicInteger overlaps = new AtomicInteger();
    /** Each handler's start, per slot, in nanos. */
    private final List<ConcurrentLinkedQueue<Long>> starts = new ArrayList<>();

    @BeforeEach
    void servers() throws Exception {
        redis = RedisServer.start();
        zookeeper = new TestingServer(true);
        partitionedLink = TcpProxy.to("127.0.0.1", zookeeper.getPort());
        for (int i = 0; i < SLOTS; i++) {
            running[i] = new AtomicInteger();
            starts.add(new ConcurrentLinkedQueue<>());
        }
    }

    @AfterEach
    void stopEverything() throws Exception {
        partitionedLink.close();
        for (ZooKeeperNode node : nodes) {
            node.close();
        }
        ZooKeeperNode.closeAll(zookeeper, redis);
    }

    @Test
    void anInstanceCutOffFromZooKeeperHandsItsSlotsOverWithinTheSessionNotTheLease() throws Exception {
        ZooKeeperNode cutOff = node("cut-off", partitionedLink.hostAndPort());
        await().atMost(Duration.ofSeconds(20)).until(() -> cutOff.container.ownedSlots().size() == SLOTS);
        ZooKeeperNode other = node("other", zookeeper.getConnectString());
        // with a worker per slot on each side, the plan may well leave every slot where it is
        await().atMost(Duration.ofSeconds(20)).until(() -> !cutOff.container.ownedSlots().isEmpty()
                && other.container.ownedSlots().size() + cutOff.container.ownedSlots().size() == SLOTS);

        RedissonClient producerRedis = Fixtures.redisson(redis.address());
        try (RmqClient producer = RmqClient.builder(producerRedis).topic(TOPIC).build()) {
            AtomicLong sent = new AtomicLong();
            Thread sender = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    long n = sent.incrementAndGet();
                    producer.producer().send(OutgoingMessage.priority(TOPIC.name(), "m" + n, 100).withKey("m" + n));
                    try {
                        Thread.sleep(10); // a steady stream of sends, so that every slot always has work
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "sender");
            sender.setDaemon(true);
            sender.start();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> starts.stream().allMatch(s -> s.size() >= 3));
                long stallStart = System.nanoTime();
                partitionedLink.stall();
                // the partition lasts until the cut-off instance's session has expired on the server: only then
                // does the other instance own every slot
                await().atMost(Duration.ofSeconds(30)).until(() -> other.container.ownedSlots().size() == SLOTS);
                partitionedLink.heal();
                // and until every slot has had work after the heal, so that a gap ending with the rejoin is measured too
                long healed = System.nanoTime();
                await().atMost(Duration.ofSeconds(30)).until(() -> starts.stream()
                        .allMatch(slot -> slot.stream().filter(start -> start > healed).count() >= 3));
                long end = System.nanoTime();

                long longestGapMs = 0;
                for (int slot = 0; slot < SLOTS; slot++) {
                    long previous = stallStart;
                    for (long start : starts.get(slot)) {
                        if (start < stallStart) {
                            continue;
                        }
                        longestGapMs = Math.max(longestGapMs, (start - previous) / 1_000_000);
                        previous = start;
                    }
                    longestGapMs = Math.max(longestGapMs, (end - previous) / 1_000_000);
                }
                log.info("longest slot gap during a ZooKeeper partition of one instance: {} ms (session timeout {} ms,"
                        + " handlers {} to {} ms, lease {} ms)", longestGapMs, ZooKeeperNode.SESSION_TIMEOUT_MS,
                        HANDLER_MIN_MS, HANDLER_MAX_MS, LEASE.toMillis());
                assertThat(overlaps.get()).as("two handlers of one slot at once").isZero();
                assertThat(longestGapMs).as("longest gap of a slot, in ms")
                        .isLessThanOrEqualTo(ZooKeeperNode.SESSION_TIMEOUT_MS + (long) HANDLER_MAX_MS);
            } finally {
                sender.interrupt();
                sender.join();
            }
        } finally {
            producerRedis.shutdown();
        }
    }

    /** A worker per slot on each node, so that one node can hold every slot without a slot waiting for another's batch. */
    private ZooKeeperNode node(String name, String zkConnect) {
        ZooKeeperNode node = new ZooKeeperNode(name, redis.address(), zkConnect, TOPIC, SLOTS, this::handle).start();
        nodes.add(node);
        return node;
    }

    private ConsumeResult handle(RmqMessage<String> message) throws InterruptedException {
        int slot = message.slot();
        if (running[slot].incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        try {
            starts.get(slot).add(System.nanoTime());
            // the handler's work: how long a message in hand holds up the handover is what the test measures
            Thread.sleep(ThreadLocalRandom.current().nextInt(HANDLER_MIN_MS, HANDLER_MAX_MS + 1));
            return ConsumeResult.success();
        } finally {
            running[slot].decrementAndGet();
        }
    }
}
