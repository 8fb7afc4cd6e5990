package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** With ZooKeeper, the applications running a topic at once must agree on its job controls. */
class ControlsConflictTests extends ControlsTest {

    private static TopicDefinition jobs(double rateLimit) {
        return TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(4).rateLimit(rateLimit)
                .ttl(Duration.ofMinutes(1)).build();
    }

    @Test
    void anApplicationWithOtherControlsIsRefusedWhileOneWithTheOldOnesRunsAndAcceptedAfter() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true);
             CuratorFramework curatorA = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
             CuratorFramework curatorB = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
            curatorA.start();
            curatorB.start();
            RmqCoordinator a = RmqCoordinator.builder(curatorA, client(jobs(100))).origin("app A").build();
            a.start();
            // another instance with the same controls is welcome
            RmqCoordinator twin = RmqCoordinator.builder(curatorB, client(jobs(100))).origin("app A, second instance").build();
            twin.start();
            twin.close();

            RmqClient changed = client(jobs(50));
            assertThatThrownBy(() -> RmqCoordinator.builder(curatorB, changed).origin("app B").build().start())
                    .isInstanceOf(TopicConflictException.class)
                    .hasMessageContaining("topic 'jobs' has other job controls in app A, which is running:")
                    .hasMessageContaining("rateLimit=100.0")
                    .hasMessageContaining("rateLimit=50.0")
                    .hasMessageContaining("in app B");

            a.close();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                RmqCoordinator b = RmqCoordinator.builder(curatorB, changed).origin("app B").build();
                b.start();
                b.close();
            });
            assertThat(curatorB.checkExists().forPath("/rmq/topics/jobs")).isNotNull();
        }
    }
}
