package dev.rmq.coordination;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.StopReport;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stop takes a bounded time whatever state Redis and ZooKeeper are in, and what it leaves behind (fencing
 * tokens, owner znodes, unacknowledged deliveries) is taken over by the next owner with the usual fencing, with
 * nothing lost. Real processes: a redis-server with an append-only file, so that it comes back with its data, and
 * a ZooKeeper server in this JVM.
 */
class BoundedStopTests {

    private static final Logger log = LoggerFactory.getLogger(BoundedStopTests.class);
    private static final int SLOTS = 16;
    private static final int MESSAGES = 200;
    private static final TopicDefinition TOPIC = TopicDefinition.builder("stops", TopicType.PRIORITY).slotAmount(SLOTS)
            .leaseTimeout(Duration.ofSeconds(3)).build();
    private static final Duration BOUND = Duration.ofSeconds(4);
    /** The stop's bound, and what surrounds it: the last join and the report. */
    private static final Duration SLACK = Duration.ofSeconds(1);

    @RegisterExtension
    final CoordinationServers servers = new CoordinationServers(() -> RedisServer.start(
            RedisServerOptions.defaults().withArgs("--appendonly", "yes", "--appendfsync", "always")));
    private final Map<String, AtomicInteger> consumed = new ConcurrentHashMap<>();


    @Test
    void withRedisGoneAStopIsBoundedAndTheNextOwnerTakesOverLosingNothing() throws Exception {
        ZooKeeperNode first = node("first");
        StopReport report = stopAfter(first, "Redis", servers.redis()::kill);

        assertThat(report.unreachable()).contains("Redis");
        assertThat(report.fencingTokensLeft()).as("%s", report.describe()).isEqualTo(SLOTS);
        assertThat(report.ownerZnodesLeft()).as("ZooKeeper took the owner znodes back: %s", report.describe()).isZero();

        servers.redis().restart();
        node("second");
        awaitEveryMessageConsumed();
    }

    @Test
    void withZooKeeperGoneAStopIsBoundedAndTheNextOwnerTakesOverLosingNothing() throws Exception {
        ZooKeeperNode first = node("first");
        StopReport report = stopAfter(first, "ZooKeeper", servers.zookeeper()::stop);

        assertThat(report.unreachable()).as("%s", report.describe()).containsExactly("ZooKeeper");
        assertThat(report.ownerZnodesLeft()).as("%s", report.describe()).isEqualTo(SLOTS);
        assertThat(report.deliveriesLeftToLeases()).as("Redis took every acknowledgement: %s", report.describe()).isZero();
        servers.close(first);

        servers.zookeeper().restart();
        node("second");
        awaitEveryMessageConsumed();
    }

    @Test
    void aStopDoesNotWaitForAZooKeeperCallThatWillNotReturnInTime() throws Exception {
        try (TcpProxy link = TcpProxy.to("127.0.0.1", servers.zookeeper().getPort())) {
            ZooKeeperNode first = node("first", link.hostAndPort());
            sendAndAwaitSomeConsumed(first);
            link.stall();
            // the sleep is the point: the assignment reconciles each second, so after a tick and a half one of its
            // ZooKeeper calls surely waits for a reply that the link holds, and would wait past the stop's bound (the
            // session's read timeout, then Curator's retries); no condition outside the assignment shows that call
            Thread.sleep(1500);
            StopReport report = first.container.stop(BOUND);
            log.info("the stop with ZooKeeper silent: {}", report.describe());

            assertThat(report.took()).as("%s", report.describe()).isLessThan(BOUND.plus(SLACK));
            assertThat(report.unreachable()).as("%s", report.describe()).containsExactly("ZooKeeper");
            assertThat(report.fencingTokensLeft()).as("Redis took every token back: %s", report.describe()).isZero();
            assertThat(report.ownerZnodesLeft()).as("%s", report.describe()).isEqualTo(SLOTS);
            link.heal();
            servers.close(first);
        }
        node("second");
        awaitEveryMessageConsumed();
    }

    /** Takes a server away while {@code node} is busy, stops its container, and checks that the stop kept its bound. */
    private StopReport stopAfter(ZooKeeperNode node, String server, Outage outage) throws Exception {
        sendAndAwaitSomeConsumed(node);
        outage.begin();
        StopReport report = node.container.stop(BOUND);
        log.info("the stop with {} gone: {}", server, report.describe());
        assertThat(report.took()).as("%s", report.describe()).isLessThan(BOUND.plus(SLACK));
        return report;
    }

    private interface Outage {
        void begin() throws Exception;
    }

    private ZooKeeperNode node(String name) {
        return node(name, servers.zookeeper().getConnectString());
    }

    private ZooKeeperNode node(String name, String zookeeper) {
        return servers.track(new ZooKeeperNode(name, servers.redis().address(), zookeeper,
                TOPIC, 2, message -> {
                    Thread.sleep(5); // the handler's work: the stop finds messages in flight
                    consumed.computeIfAbsent(message.payload(), k -> new AtomicInteger()).incrementAndGet();
                    return ConsumeResult.success();
                }).start());
    }

    /** Sends the messages and waits until the first node holds every slot and has consumed some, not all. */
    private void sendAndAwaitSomeConsumed(ZooKeeperNode node) {
        await().atMost(Duration.ofSeconds(30)).until(() -> node.container.ownedSlots().size() == SLOTS);
        List<OutgoingMessage> messages = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            messages.add(OutgoingMessage.priority(TOPIC.name(), "m" + i, 100));
        }
        node.rmq.producer().sendAll(messages);
        await().atMost(Duration.ofSeconds(30)).until(() -> consumed.size() >= 20);
        assertThat(consumed.size()).as("still work left when the server goes").isLessThan(MESSAGES);
    }

    private void awaitEveryMessageConsumed() {
        await().atMost(Duration.ofSeconds(60)).until(() -> consumed.size() == MESSAGES);
        Set<String> keys = consumed.keySet();
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(keys).contains("m" + i);
        }
    }
}
