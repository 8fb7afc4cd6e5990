package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * One application instance of the rebalance section: its own Redis client, ZooKeeper session (4 s), coordinator
 * and one-worker container on {@link #TOPIC}, as a separate application would have. As a program
 * ({@code main}) it is a worker in a JVM of its own, for the section to SIGKILL.
 */
final class RebalanceNode implements AutoCloseable {

    static final TopicDefinition TOPIC = TopicDefinition.builder("rebalance", TopicType.PRIORITY).slotAmount(4)
            .leaseTimeout(Duration.ofSeconds(3)).build();
    static final int SESSION_TIMEOUT_MS = 4000;

    private final RedissonClient redisson;
    private final CuratorFramework curator;
    private final RmqCoordinator coordinator;
    private final RmqConsumerContainer<String> container;

    RebalanceNode(String name, String redisAddress, String zkConnect) {
        Config config = new Config();
        config.useSingleServer().setAddress(redisAddress).setConnectionMinimumIdleSize(2).setConnectionPoolSize(4);
        this.redisson = Redisson.create(config);
        this.curator = CuratorFrameworkFactory.builder().connectString(zkConnect).sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 5, 1000)).build();
        curator.start();
        RmqClient rmq = RmqClient.builder(redisson).topic(TOPIC).build();
        this.coordinator = RmqCoordinator.builder(curator, rmq).instanceId(name).origin("rebalance node " + name).build();
        coordinator.start();
        this.container = rmq.container(TOPIC.name(), String.class, m -> ConsumeResult.success()).id("c")
                .settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)))
                .assignment(coordinator::newAssignment).build();
    }

    RebalanceNode start() {
        container.start();
        return this;
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

    /** A worker in its own JVM until it is killed. Arguments: Redis address, ZooKeeper connect string, name. */
    public static void main(String[] args) throws InterruptedException {
        new RebalanceNode(args[2], args[0], args[1]).start();
        System.out.println("STARTED " + args[2]);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
