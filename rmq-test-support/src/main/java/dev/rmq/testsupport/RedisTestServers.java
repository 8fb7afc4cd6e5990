package dev.rmq.testsupport;

import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import org.jspecify.annotations.Nullable;
/**
 * Entry points for tests.
 *
 * <pre>{@code
 * static RedisServer redis = RedisTestServers.newStandalone();   // close it in @AfterAll
 * RedisCluster cluster = RedisTestServers.sharedCluster();        // never close it
 * }</pre>
 */
public final class RedisTestServers {

    private static @Nullable RedisCluster sharedCluster;

    private RedisTestServers() {
    }

    /**
     * One cluster per JVM, started on first use because forming it takes seconds. It is stopped by
     * the shutdown hook at JVM exit, so callers must not close it, and must not fail over or kill its
     * nodes either: later test classes expect the original topology. Start a private
     * {@link RedisCluster#start()} for that.
     */
    public static synchronized RedisCluster sharedCluster() {
        if (sharedCluster == null || sharedCluster.isClosed()) {
            sharedCluster = RedisCluster.start();
        }
        return sharedCluster;
    }

    /** A new standalone server; the caller closes it (try-with-resources or {@code @AfterAll}). */
    public static RedisServer newStandalone() {
        return RedisServer.start();
    }

    public static RedisServer newStandalone(RedisServerOptions options) {
        return RedisServer.start(options);
    }
}
