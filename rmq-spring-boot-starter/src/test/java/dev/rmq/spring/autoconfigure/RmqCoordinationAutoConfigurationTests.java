package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.listener.LocalSlotAssignmentFactory;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.spring.listener.ZooKeeperSlotAssignmentFactory;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The ZooKeeper slot assignment: when it applies, what backs it off, and what start-up refuses. Each test
 * keeps its znodes under a root of its own, on one real ZooKeeper.
 */
@ExtendWith(OutputCaptureExtension.class)
class RmqCoordinationAutoConfigurationTests {

    private static final String LOCAL_MODE_NOTICE = "rmq assigns slots locally";
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static RedisServer redis;
    private static TestingServer zookeeper;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class,
                    RmqCoordinationAutoConfiguration.class, RmqAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=FIXED_TIME",
                    "rmq.topics.orders.slot-amount=4", "rmq.listener.idle-poll=200ms");

    @BeforeAll
    static void startServers() throws Exception {
        redis = RedisTestServers.newStandalone();
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopServers() throws Exception {
        try {
            zookeeper.close();
        } finally {
            redis.close();
        }
    }

    @Test
    void aCuratorGivesACoordinatorAndTheZooKeeperAssignment() {
        withZooKeeper("/applies").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RmqCoordinator.class);
            RmqSlotAssignmentFactory factory = context.getBean(RmqSlotAssignmentFactory.class);
            assertThat(factory).isInstanceOf(ZooKeeperSlotAssignmentFactory.class);
            assertThat(factory.mode()).isEqualTo("zookeeper");
            assertThat(factory.create(context.getBean(RmqClient.class).topics().require("orders"), "c"))
                    .isNotInstanceOf(LocalSlotAssignment.class);
            CuratorFramework curator = context.getBean(CuratorFramework.class);
            assertThat(curator.checkExists().forPath("/applies/topics/orders")).as("registered under the root").isNotNull();
        });
    }

    @Test
    void withoutACuratorSlotsAreAssignedLocally() {
        contextRunner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RmqCoordinator.class);
            assertThat(context.getBean(RmqSlotAssignmentFactory.class)).isInstanceOf(LocalSlotAssignmentFactory.class);
        });
    }

    @Test
    void theApplicationsOwnAssignmentFactoryIsUsedAndTopicsAreStillRegistered() {
        RmqSlotAssignmentFactory own = (topic, containerId) -> new LocalSlotAssignment();
        withZooKeeper("/own-factory").withBean("ownAssignments", RmqSlotAssignmentFactory.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RmqSlotAssignmentFactory.class).hasSingleBean(RmqCoordinator.class);
            assertThat(context.getBean(RmqSlotAssignmentFactory.class)).isSameAs(own);
        });
    }

    @Test
    void theApplicationsOwnCoordinatorReplacesTheStartersAndBacksTheZooKeeperAssignment() {
        withZooKeeper("/starters-root").withUserConfiguration(OwnCoordinator.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RmqCoordinator.class);
            assertThat(context.getBean(RmqCoordinator.class)).isSameAs(context.getBean("ownCoordinator"));
            assertThat(context.getBean(RmqSlotAssignmentFactory.class)).isInstanceOf(ZooKeeperSlotAssignmentFactory.class);
            CuratorFramework curator = context.getBean(CuratorFramework.class);
            assertThat(curator.checkExists().forPath(OwnCoordinator.ROOT + "/topics/orders")).isNotNull();
            assertThat(curator.checkExists().forPath("/starters-root")).isNull();
        });
    }

    @Test
    void aConflictingDefinitionOfATopicFailsStartUpNamingBothDefinitions() throws Exception {
        String host = InetAddress.getLocalHost().getHostName();
        withZooKeeper("/conflict").withPropertyValues("spring.application.name=billing").run(first -> {
            assertThat(first).hasNotFailed();
            withZooKeeper("/conflict").withPropertyValues("spring.application.name=shipping",
                    "rmq.topics.orders.type=PRIORITY").run(second -> {
                assertThat(second).hasFailed();
                assertThat(second.getStartupFailure()).rootCause().isInstanceOf(TopicConflictException.class)
                        .hasMessage("topic 'orders' is defined differently: FIXED_TIME with 4 slots by billing@" + host
                                + ", but PRIORITY with 4 slots by shipping@" + host
                                + "; every application must agree on a topic's type and slotAmount");
            });
            withZooKeeper("/conflict").withPropertyValues("spring.application.name=shipping")
                    .run(same -> assertThat(same).as("the same definition is welcome").hasNotFailed());
        });
    }

    @Test
    void anApplicationsCuratorThatIsNotStartedFailsStartUpClearly() {
        CuratorFramework unstarted = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        try {
            contextRunner.withBean("ownCurator", CuratorFramework.class, () -> unstarted).run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).hasStackTraceContaining("the application's CuratorFramework bean is"
                        + " LATENT, not started: rmq uses it as it is and neither starts nor closes it");
            });
        } finally {
            unstarted.close();
        }
    }

    @Test
    void withADigestEveryZnodeOfRmqBelongsToThatUserAlone() throws Exception {
        withZooKeeper("/secured").withPropertyValues("rmq.zookeeper.digest=rmq:secret")
                .withBean(OrdersListener.class).run(context -> {
                    RmqCoordinator coordinator = context.getBean(RmqCoordinator.class);
                    // members, plan and owners exist once every slot is held
                    await().atMost(WAIT).until(() -> coordinator.owners("orders").size() == 4);
                    List<ACL> creatorOnly = List.of(new ACL(ZooDefs.Perms.ALL,
                            new Id("digest", DigestAuthenticationProvider.generateDigest("rmq:secret"))));

                    try (CuratorFramework user = client("rmq:secret")) {
                        List<String> znodes = tree(user, "/secured");
                        assertThat(znodes).contains("/secured/topics/orders", "/secured/topics/orders/plan",
                                "/secured/topics/orders/owners/0", "/secured/topics/orders/owners/3");
                        assertThat(znodes).filteredOn(path -> path.startsWith("/secured/topics/orders/members/")).hasSize(1);
                        for (String znode : znodes) {
                            assertThat(user.getACL().forPath(znode)).as(znode).isEqualTo(creatorOnly);
                        }
                    }
                    try (CuratorFramework anonymous = client(null)) {
                        assertThatThrownBy(() -> anonymous.getData().forPath("/secured/topics/orders"))
                                .isInstanceOf(KeeperException.NoAuthException.class);
                    }
                });
    }

    @Test
    void theLocalModeIsAnnouncedOnlyWhereItApplies(CapturedOutput output) {
        withZooKeeper("/announced").withBean(OrdersListener.class).run(context -> {
            RmqCoordinator coordinator = context.getBean(RmqCoordinator.class);
            await().atMost(WAIT).until(() -> coordinator.owners("orders").size() == 4);
        });
        assertThat(output.getOut()).doesNotContain(LOCAL_MODE_NOTICE);

        contextRunner.run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).as("nothing consumes, so nothing is given up").doesNotContain(LOCAL_MODE_NOTICE);

        contextRunner.withBean(OrdersListener.class).withBean(OtherOrdersListener.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output.getOut().split(LOCAL_MODE_NOTICE, -1)).as("said once for two containers").hasSize(2);
        });
    }

    private ApplicationContextRunner withZooKeeper(String root) {
        return contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "rmq.zookeeper.root=" + root);
    }

    private static CuratorFramework client(String digest) throws InterruptedException {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(zookeeper.getConnectString()).retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework client = builder.build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** The znode and everything below it. */
    private static List<String> tree(CuratorFramework client, String path) throws Exception {
        List<String> paths = new ArrayList<>(List.of(path));
        for (String child : client.getChildren().forPath(path)) {
            paths.addAll(tree(client, path + "/" + child));
        }
        return paths;
    }

    static class OrdersListener {
        @RmqListener(topic = "orders")
        void close(String order) {
        }
    }

    static class OtherOrdersListener {
        @RmqListener(topic = "orders", id = "audit")
        void audit(String order) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnCoordinator {

        static final String ROOT = "/own-coordinator";

        @Bean(initMethod = "start", destroyMethod = "close")
        RmqCoordinator ownCoordinator(CuratorFramework curator, RmqClient client) {
            return RmqCoordinator.builder(curator, client).root(ROOT).origin("own").build();
        }
    }
}
