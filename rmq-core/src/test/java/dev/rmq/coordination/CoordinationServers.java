package dev.rmq.coordination;

import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A Redis and a ZooKeeper server of each test's own, and the application instances the test starts on them: after
 * the test the instances are closed first, then the servers, whatever failed.
 *
 * <pre>{@code @RegisterExtension final CoordinationServers servers = new CoordinationServers();}</pre>
 */
final class CoordinationServers implements BeforeEachCallback, AfterEachCallback {

    private final Supplier<RedisServer> startRedis;
    private final List<AutoCloseable> instances = new ArrayList<>();
    private RedisServer redis;
    private TestingServer zookeeper;

    CoordinationServers() {
        this(RedisTestServers::newStandalone);
    }

    /** @param startRedis starts the test's Redis, for one with options of its own */
    CoordinationServers(Supplier<RedisServer> startRedis) {
        this.startRedis = startRedis;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        redis = startRedis.get();
        zookeeper = new TestingServer(true);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            for (AutoCloseable instance : instances) {
                instance.close();
            }
        } finally {
            instances.clear();
            ZooKeeperNode.closeAll(zookeeper, redis);
        }
    }

    RedisServer redis() {
        return redis;
    }

    TestingServer zookeeper() {
        return zookeeper;
    }

    /** Closes {@code instance} after the test, before the servers. */
    <I extends AutoCloseable> I track(I instance) {
        instances.add(instance);
        return instance;
    }

    /** Closes {@code instance} now, and not again after the test. */
    void close(AutoCloseable instance) throws Exception {
        instances.remove(instance);
        instance.close();
    }
}
