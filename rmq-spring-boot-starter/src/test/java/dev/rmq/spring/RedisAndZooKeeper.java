package dev.rmq.spring;

import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A real redis-server and an in-process ZooKeeper (Curator's TestingServer) for one test class. Register
 * it before {@code @SpringBootTest}, so that the application context (closed by {@code @DirtiesContext})
 * stops before the servers do; both are stopped even when the class fails.
 */
public final class RedisAndZooKeeper implements BeforeAllCallback, AfterAllCallback {

    private static RedisServer redis;
    private static TestingServer zookeeper;

    public static RedisServer redis() {
        return redis;
    }

    public static TestingServer zookeeper() {
        return zookeeper;
    }

    /** Points a test's application at these servers, from its {@code @DynamicPropertySource} method. */
    public static void connect(DynamicPropertyRegistry properties) {
        properties.add("rmq.redis.address", () -> redis.address());
        properties.add("rmq.zookeeper.connect-string", () -> zookeeper.getConnectString());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        redis = RedisTestServers.newStandalone();
        zookeeper = new TestingServer(true);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (zookeeper != null) {
                zookeeper.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }
}
