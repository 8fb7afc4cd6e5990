package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.spring.actuate.ContainersHealthIndicator;
import dev.rmq.spring.actuate.RedisHealthIndicator;
import dev.rmq.spring.actuate.ZooKeeperHealthIndicator;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code rmq} health contributor: {@code redis} (every node answers PING), {@code containers} (no running
 * listener container has been cut off from Redis past the outage threshold) and, when the application
 * has a {@code CuratorFramework}, {@code zookeeper} (the session is connected). Off with
 * {@code management.health.rmq.enabled=false}.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class})
@ConditionalOnClass({HealthContributor.class, ConditionalOnEnabledHealthIndicator.class, RmqClient.class})
@ConditionalOnBean(RmqClient.class)
@ConditionalOnEnabledHealthIndicator("rmq")
public final class RmqHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rmqHealthContributor")
    HealthContributor rmqHealthContributor(RmqClient rmq, ObjectProvider<CuratorFramework> curator,
                                           RmqProperties properties) {
        Map<String, HealthContributor> parts = new LinkedHashMap<>();
        // the connection rmq itself uses, which need not be the application's only RedissonClient
        parts.put("redis", new RedisHealthIndicator(rmq.redisson(), properties.redis().timeout()));
        parts.put("containers", new ContainersHealthIndicator(rmq));
        CuratorFramework zookeeper = curator.getIfUnique();
        if (zookeeper != null) {
            parts.put("zookeeper", new ZooKeeperHealthIndicator(zookeeper, properties.zookeeper().root()));
        }
        return CompositeHealthContributor.fromMap(parts);
    }
}
