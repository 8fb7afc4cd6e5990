package dev.rmq.spring.actuate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the ZooKeeper session is connected. A suspended or lost connection is DOWN: slot ownership
 * cannot be trusted without it.
 */
public class ZooKeeperHealthIndicator extends AbstractHealthIndicator {

    private final CuratorFramework curator;
    private final String root;

    public ZooKeeperHealthIndicator(CuratorFramework curator, String root) {
        super("ZooKeeper health check failed");
        this.curator = curator;
        this.root = root;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("root", root);
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            builder.down().withDetail("state", curator.getState().name());
            return;
        }
        builder.withDetail("connectString", curator.getZookeeperClient().getCurrentConnectionString());
        if (curator.getZookeeperClient().isConnected()) {
            builder.up().withDetail("state", "CONNECTED");
        } else {
            builder.down().withDetail("state", "DISCONNECTED");
        }
    }
}
