package dev.rmq.embedded.boot;

import dev.rmq.embedded.EmbeddedZooKeeper;
import dev.rmq.embedded.RedisServer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What an application's embedded default started: a redis-server process and an in-process ZooKeeper, either of
 * which is null when the configuration names its own. Closing stops both.
 */
final class EmbeddedServers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedServers.class);

    private final @Nullable RedisServer redis;
    private final @Nullable EmbeddedZooKeeper zookeeper;
    private final AtomicBoolean closed = new AtomicBoolean();

    EmbeddedServers(@Nullable RedisServer redis, @Nullable EmbeddedZooKeeper zookeeper) {
        this.redis = redis;
        this.zookeeper = zookeeper;
    }

    /** Only the first call acts: both the context's shutdown and the JVM's exit call it. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (zookeeper != null) {
            zookeeper.close();
            log.info("Stopped the {}", zookeeper);
        }
        if (redis != null) {
            String description = redis.toString();
            redis.close();
            log.info("Stopped the embedded {}", description);
        }
    }
}
