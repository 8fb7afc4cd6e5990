package dev.rmq.spring.actuate;

import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.BaseRedisNodes;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Whether every Redis node rmq uses answers PING, through the application's Redisson client: the single
 * server, every Cluster node, or the Sentinel-monitored master and replicas.
 */
public class RedisHealthIndicator extends AbstractHealthIndicator {

    private final RedissonClient redisson;
    private final Duration timeout;

    public RedisHealthIndicator(RedissonClient redisson, Duration timeout) {
        super("Redis health check failed");
        this.redisson = redisson;
        this.timeout = timeout;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Config config = redisson.getConfig();
        String mode = config.isClusterConfig() ? "cluster" : config.isSentinelConfig() ? "sentinel"
                : config.isSingleConfig() ? "single" : "master-replica";
        builder.withDetail("mode", mode);
        if (redisson.isShutdown()) {
            builder.down().withDetail("error", "the Redisson client is shut down");
            return;
        }
        if (nodes(config).pingAll(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            builder.up();
        } else {
            builder.down().withDetail("error", "a Redis node did not answer PING within " + timeout);
        }
    }

    private BaseRedisNodes nodes(Config config) {
        if (config.isClusterConfig()) {
            return redisson.getRedisNodes(RedisNodes.CLUSTER);
        }
        if (config.isSentinelConfig()) {
            return redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE);
        }
        if (config.isSingleConfig()) {
            return redisson.getRedisNodes(RedisNodes.SINGLE);
        }
        return redisson.getRedisNodes(RedisNodes.MASTER_SLAVE);
    }
}
