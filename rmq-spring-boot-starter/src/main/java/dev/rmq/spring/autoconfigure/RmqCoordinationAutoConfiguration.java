package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.spring.listener.ZooKeeperSlotAssignmentFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One worker per slot across the cluster, whenever the application has a {@code CuratorFramework} (its
 * own, or the one built from {@code rmq.zookeeper.*}): an {@link RmqCoordinator} that registers the topics
 * under {@code rmq.zookeeper.root}, and the {@code zookeeper} {@link RmqSlotAssignmentFactory}, before which
 * the local one of {@link RmqAutoConfiguration} backs off.
 *
 * <p>Start-up fails on a topic that another application defined differently (the error names both
 * definitions), and on an application's CuratorFramework that is not started: rmq uses that client as it
 * is, and leaves starting and closing it to its owner.
 */
// Before RmqAutoConfiguration, so that its local assignment sees this one and backs off. The RmqClient that
// the coordinator needs is defined there; that is fine, because every definition is registered before any
// bean is created. The condition on RedissonClient is RmqAutoConfiguration's own, so the RmqClient exists.
@AutoConfiguration(after = {RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class},
        before = RmqAutoConfiguration.class)
@ConditionalOnClass({RmqCoordinator.class, CuratorFramework.class})
@ConditionalOnBean({CuratorFramework.class, RedissonClient.class})
@EnableConfigurationProperties(RmqProperties.class)
public final class RmqCoordinationAutoConfiguration {

    /**
     * Started here, so that a conflicting definition stops start-up. Its dependencies order the shutdown:
     * closed after the listener containers have released their slots (the registry stops them in the
     * lifecycle phase, before any bean is destroyed), and before the Curator and Redisson clients it uses.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RmqCoordinator rmqCoordinator(CuratorFramework curator, RmqClient client, RmqProperties properties,
                                  Environment environment) {
        requireStarted(curator);
        RmqCoordinator coordinator = RmqCoordinator.builder(curator, client)
                .root(properties.zookeeper().root())
                .origin(origin(environment))
                .build();
        coordinator.start();
        return coordinator;
    }

    @Bean
    @ConditionalOnMissingBean
    RmqSlotAssignmentFactory rmqSlotAssignmentFactory(RmqCoordinator coordinator) {
        return new ZooKeeperSlotAssignmentFactory(coordinator);
    }

    private static void requireStarted(CuratorFramework curator) {
        CuratorFrameworkState state = curator.getState();
        if (state != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the application's CuratorFramework bean is " + state + ", not started:"
                    + " rmq uses it as it is and neither starts nor closes it; start it where it is defined, for"
                    + " example with @Bean(initMethod = \"start\", destroyMethod = \"close\")");
        }
    }

    /** Named in {@link TopicConflictException}s: which application on which host defined a topic first. */
    private static String origin(Environment environment) {
        String application = environment.getProperty("spring.application.name");
        String host = hostName();
        return application == null || application.isBlank() ? host : application + "@" + host;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
