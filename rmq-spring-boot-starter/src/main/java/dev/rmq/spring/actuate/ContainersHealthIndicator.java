package dev.rmq.spring.actuate;

import dev.rmq.RmqClient;
import dev.rmq.consumer.RmqConsumerContainer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether every running listener container reaches Redis: down while one's calls have failed, or waited for a
 * reply, longer than the outage threshold ({@code rmq.redis.outage-threshold}). It reads what the containers
 * already know, so it adds no call to Redis; a PING can pass while a container's own connections are stuck.
 */
public class ContainersHealthIndicator extends AbstractHealthIndicator {

    private final RmqClient rmq;

    public ContainersHealthIndicator(RmqClient rmq) {
        super("rmq containers health check failed");
        this.rmq = rmq;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, String> unreachable = new TreeMap<>();
        int running = 0;
        for (RmqConsumerContainer<?> container : rmq.containers()) {
            if (!container.isRunning()) {
                continue;
            }
            running++;
            container.redisOutage().ifPresent(length -> unreachable.put(container.id(), "Redis unreachable for "
                    + seconds(length)));
        }
        builder.withDetail("running", running);
        if (unreachable.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("unreachable", unreachable);
        }
    }

    private static String seconds(Duration length) {
        return String.format(Locale.ROOT, "%.1f s", length.toNanos() / 1e9);
    }
}
