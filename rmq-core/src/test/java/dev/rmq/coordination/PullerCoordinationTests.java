package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pullers under ZooKeeper assignment: each is a member like a container, takes only the slots it owns, and two
 * pullers never hold one slot at once, through a join and a leave while messages flow.
 */
class PullerCoordinationTests {

    private static final int SLOTS = 8;
    private static final TopicDefinition TOPIC = TopicDefinition.builder("pulled", TopicType.PRIORITY).slotAmount(SLOTS)
            .leaseTimeout(Duration.ofSeconds(3)).build();

    @RegisterExtension
    final CoordinationServers servers = new CoordinationServers();
    private final OverlapLog runs = new OverlapLog();
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();

    @Test
    void twoPullersNeverHoldOneSlotAtOnceThroughAJoinAndALeave() throws Exception {
        PullNode first = node("first");
        await().atMost(Duration.ofSeconds(20)).until(() -> first.puller.ownedSlots().get(TOPIC.name()).size() == SLOTS);
        Set<String> sent = new HashSet<>();
        AtomicReference<PullNode> joined = new AtomicReference<>();
        RedissonClient producerRedis = Fixtures.redisson(servers.redis());
        try (RmqClient producer = RmqClient.builder(producerRedis).topic(TOPIC).build()) {
            for (int round = 0; round < 3; round++) {
                List<OutgoingMessage> batch = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    String key = "r" + round + "-" + i;
                    batch.add(OutgoingMessage.priority(TOPIC.name(), key, 100).withKey(key));
                    sent.add(key);
                }
                producer.producer().sendAll(batch);
                if (round == 0) {
                    PullNode second = node("second");
                    joined.set(second);
                    await().atMost(Duration.ofSeconds(20)).until(() -> owned(first) + owned(second) == SLOTS
                            && owned(first) > 0 && owned(second) > 0);
                    assertThat(first.puller.ownedSlots().get(TOPIC.name()))
                            .doesNotContainAnyElementsOf(second.puller.ownedSlots().get(TOPIC.name()));
                } else if (round == 1) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> consumed.size() >= 300);
                    servers.close(first);
                    await().atMost(Duration.ofSeconds(20)).until(() -> owned(joined.get()) == SLOTS);
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> consumed.containsAll(sent));
        } finally {
            producerRedis.shutdown();
        }

        assertThat(runs.size()).isGreaterThanOrEqualTo(sent.size());
        assertThat(runs.overlaps()).as("runs of one slot by two pullers at once").isEmpty();
    }

    private static int owned(PullNode node) {
        return node.puller.ownedSlots().get(TOPIC.name()).size();
    }

    private PullNode node(String name) {
        return servers.track(new PullNode(name));
    }

    /** One application with a puller under ZooKeeper assignment, and a thread that pulls, works and acks. */
    private final class PullNode implements AutoCloseable {

        final RedissonClient redisson;
        final CuratorFramework curator;
        final RmqClient rmq;
        final RmqCoordinator coordinator;
        final RmqPuller<String> puller;
        final AtomicBoolean pulling = new AtomicBoolean(true);
        final Thread thread;
        private boolean closed;

        PullNode(String name) {
            redisson = Fixtures.redisson(servers.redis());
            curator = CuratorFrameworkFactory.builder().connectString(servers.zookeeper().getConnectString())
                    .sessionTimeoutMs(ZooKeeperNode.SESSION_TIMEOUT_MS).connectionTimeoutMs(2000)
                    .retryPolicy(new ExponentialBackoffRetry(100, 5, 1000)).build();
            curator.start();
            rmq = RmqClient.builder(redisson).topic(TOPIC).build();
            coordinator = RmqCoordinator.builder(curator, rmq).instanceId(name).origin("test node " + name).build();
            coordinator.start();
            puller = rmq.puller(String.class).topics(TOPIC.name()).id("p").assignment(coordinator::newAssignment)
                    .idlePoll(Duration.ofMillis(200)).build();
            puller.start();
            thread = new Thread(() -> {
                while (pulling.get()) {
                    for (PulledMessage<String> message : puller.poll(16, Duration.ofMillis(200))) {
                        runs.record(message.slot(), name, () -> {
                            work();
                            try {
                                message.ack();
                                consumed.add(message.key());
                            } catch (LeaseExpiredException e) {
                                // the slot moved on before the ack: the message comes again to its new owner
                            }
                        });
                    }
                }
            }, "pull-" + name);
            thread.start();
        }

        /** The program's own work on a message: 1 to 5 ms, so that pullers hold messages while slots move. */
        private static void work() {
            try {
                Thread.sleep(ThreadLocalRandom.current().nextInt(1, 6));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (closed) {
                return;
            }
            closed = true;
            pulling.set(false);
            thread.join(10_000);
            try {
                puller.close();
            } finally {
                coordinator.close();
                curator.close();
                redisson.shutdown();
            }
        }
    }
}
