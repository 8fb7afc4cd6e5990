package dev.rmq.spring.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Curator client: built from {@code rmq.zookeeper.*}, reused when the application has one, absent otherwise. */
class RmqZooKeeperAutoConfigurationTests {

    private static TestingServer zookeeper;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqZooKeeperAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws IOException {
        zookeeper.close();
    }

    @Test
    void buildsAConnectedClientFromTheConnectString() {
        contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "rmq.zookeeper.session-timeout=10s").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
            CuratorFramework curator = context.getBean(CuratorFramework.class);
            assertThat(curator.getZookeeperClient().isConnected()).isTrue();
            assertThat(curator.getZookeeperClient().getCurrentConnectionString()).isEqualTo(zookeeper.getConnectString());
        });
    }

    @Test
    void buildsNoClientWithoutAConnectString() {
        contextRunner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CuratorFramework.class));
    }

    @Test
    void usesTheApplicationsOwnClient() {
        CuratorFramework own = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        contextRunner.withBean("ownCurator", CuratorFramework.class, () -> own)
                .withPropertyValues("rmq.zookeeper.connect-string=127.0.0.1:1")
                .run(context -> assertThat(context.getBean(CuratorFramework.class)).isSameAs(own));
        own.close();
    }

    @Test
    void authenticatesWithADigestAndKeepsItsZnodesToItself() {
        contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "rmq.zookeeper.digest=rmq:secret").run(context -> {
            CuratorFramework curator = context.getBean(CuratorFramework.class);
            curator.create().forPath("/digest-test", "x".getBytes(StandardCharsets.UTF_8));
            List<ACL> acl = curator.getACL().forPath("/digest-test");
            assertThat(acl).hasSize(1);
            assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
            assertThat(acl.get(0).getId().getId()).startsWith("rmq:");
            assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
        });
    }

    @Test
    void failsStartUpClearlyWhenZooKeeperCannotBeReached() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        contextRunner.withPropertyValues("rmq.zookeeper.connect-string=127.0.0.1:" + closedPort,
                "rmq.zookeeper.connection-timeout=1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("rmq could not connect to ZooKeeper at 127.0.0.1:"
                    + closedPort + " (from rmq.zookeeper.connect-string): no connection within PT1S");
            FailureAnalysis report = new RmqStartupFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(report.getAction()).contains("set rmq.zookeeper.connect-string=host:2181")
                    .contains("rmq.zookeeper.connection-timeout, PT1S");
        });
    }

    @Test
    void refusesARootThatIsNotAnAbsolutePathBelowTheZooKeeperRoot() {
        for (String root : List.of("/", "rmq", "/rmq/", "/a//b")) {
            contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + zookeeper.getConnectString(),
                    "rmq.zookeeper.root=" + root).run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "rmq.zookeeper.root must be an absolute znode path below /, like /rmq, without a trailing slash;"
                                + " was '" + root + "'");
            });
        }
    }

    @Test
    void refusesADigestWithoutAPassword() {
        contextRunner.withPropertyValues("rmq.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "rmq.zookeeper.digest=justauser").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("rmq.zookeeper.digest must be 'user:password'");
        });
    }
}
