package dev.rmq.spring.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A Curator client for the {@link RmqZooKeeperConnectionDetails} (a bean of the application's or a service
 * connection's, else one made from {@code rmq.zookeeper.connect-string}), unless the application defines its own
 * {@code CuratorFramework}. With {@code rmq.zookeeper.digest} it authenticates, and the znodes it creates belong to
 * that user alone. Start-up waits for the first connection and fails clearly without one.
 */
@AutoConfiguration(before = RmqAutoConfiguration.class)
@ConditionalOnClass(CuratorFramework.class)
@EnableConfigurationProperties(RmqProperties.class)
public final class RmqZooKeeperAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RmqZooKeeperAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(RmqZooKeeperConnectionDetails.class)
    @ConditionalOnProperty(prefix = "rmq.zookeeper", name = "connect-string")
    RmqZooKeeperConnectionDetails rmqZooKeeperConnectionDetails(RmqProperties properties) {
        return new PropertiesZooKeeperConnectionDetails(Objects.requireNonNull(properties.zookeeper().connectString(),
                "rmq.zookeeper.connect-string, set as the condition requires"));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    @ConditionalOnBean(RmqZooKeeperConnectionDetails.class)
    CuratorFramework rmqCuratorFramework(RmqProperties properties, RmqZooKeeperConnectionDetails details)
            throws InterruptedException {
        RmqProperties.ZooKeeper zookeeper = properties.zookeeper();
        String connectString = details.connectString();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(Math.toIntExact(zookeeper.sessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(zookeeper.connectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(1000, 3));
        if (zookeeper.digest() != null && !zookeeper.digest().isBlank()) {
            builder.authorization("digest", zookeeper.digest().getBytes(StandardCharsets.UTF_8))
                    .aclProvider(new CreatorOnly());
        }
        CuratorFramework curator = builder.build();
        curator.start();
        String source = details instanceof PropertiesZooKeeperConnectionDetails ? "rmq.zookeeper.connect-string"
                : "connection details " + details.getClass().getSimpleName();
        log.info("rmq connects to ZooKeeper at {} (from {})", connectString, source);
        if (!curator.blockUntilConnected(Math.toIntExact(zookeeper.connectionTimeout().toMillis()), TimeUnit.MILLISECONDS)) {
            curator.close();
            throw new RmqStartupConnectionException("ZooKeeper", connectString + " (from " + source + ")",
                    "set rmq.zookeeper.connect-string=host:2181 (rmq.zookeeper.connection-timeout, "
                            + zookeeper.connectionTimeout() + ", is how long start-up waits), or define an"
                            + " RmqZooKeeperConnectionDetails or CuratorFramework bean; without ZooKeeper every instance"
                            + " consumes every slot",
                    new IllegalStateException("no connection within " + zookeeper.connectionTimeout()));
        }
        return curator;
    }

    /** The ensemble named by {@code rmq.zookeeper.connect-string}. */
    record PropertiesZooKeeperConnectionDetails(String connectString) implements RmqZooKeeperConnectionDetails {
    }

    /** Full rights for the authenticated creator, nothing for anyone else. */
    private static final class CreatorOnly implements ACLProvider {

        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    }
}
