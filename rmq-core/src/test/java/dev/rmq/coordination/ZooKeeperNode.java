package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryOneTime;
import org.redisson.api.RedissonClient;

import java.time.Duration;

/**
 * One application instance for coordination tests: its own Redis client, ZooKeeper session,
 * coordinator and container, as a separate process would have.
 */
final class ZooKeeperNode implements AutoCloseable {

    static final int SESSION_TIMEOUT_MS = 4000;

    final String name;
    final RedissonClient redisson;
    final CuratorFramework curator;
    final RmqClient rmq;
    final RmqCoordinator coordinator;
    final RmqConsumerContainer<String> container;

    ZooKeeperNode(String name, String redisAddress, String zkConnect, TopicDefinition topic, int concurrency,
                  RmqHandler<String> handler) {
        this(name, null, redisAddress, zkConnect, topic, concurrency, handler);
    }

    /** A node of an availability zone ({@code zone} null for none). */
    ZooKeeperNode(String name, String zone, String redisAddress, String zkConnect, TopicDefinition topic,
                  int concurrency, RmqHandler<String> handler) {
        this.name = name;
        this.redisson = Fixtures.redisson(redisAddress);
        this.curator = CuratorFrameworkFactory.builder().connectString(zkConnect).sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 5, 1000)).build();
        curator.start();
        this.rmq = RmqClient.builder(redisson).topic(topic).zone(zone).build();
        this.coordinator = RmqCoordinator.builder(curator, rmq).instanceId(name).origin("test node " + name).build();
        coordinator.start();
        this.container = rmq.container(topic.name(), String.class, handler).id("c")
                .settings(ConsumerSettings.DEFAULTS.withConcurrency(concurrency).withBatchSize(8)
                        .withIdlePoll(Duration.ofMillis(200)).withShutdownTimeout(Duration.ofSeconds(5)))
                .assignment(coordinator::newAssignment).build();
    }

    ZooKeeperNode start() {
        container.start();
        return this;
    }

    /** Removes rmq's znodes, so that each test starts from an empty ensemble. */
    static void deleteRoot(String connectString) throws Exception {
        try (CuratorFramework c = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(200))) {
            c.start();
            c.blockUntilConnected();
            if (c.checkExists().forPath("/rmq") != null) {
                c.delete().deletingChildrenIfNeeded().forPath("/rmq");
            }
        }
    }

    /** Closes the servers of a test class, all of them even when one fails. */
    static void closeAll(java.io.Closeable zookeeper, AutoCloseable redis) throws Exception {
        try {
            zookeeper.close();
        } finally {
            redis.close();
        }
    }

    void expireSession() throws Exception {
        curator.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    }

    @Override
    public void close() {
        try {
            container.stop();
        } finally {
            coordinator.close();
            curator.close();
            redisson.shutdown();
        }
    }
}
