package dev.rmq;

import dev.rmq.testsupport.RedisCluster;
import dev.rmq.embedded.RedisServer;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Redisson clients and topics for tests against real redis-server processes. */
public final class Fixtures {

    private Fixtures() {
    }

    public static RedissonClient redisson(RedisServer server) {
        return redisson(server.address());
    }

    /** A client of the standalone Redis at {@code address} ("redis://127.0.0.1:port"). */
    public static RedissonClient redisson(String address) {
        Config config = new Config();
        config.useSingleServer().setAddress(address).setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(8).setRetryAttempts(1).setTimeout(3000);
        return Redisson.create(config);
    }

    public static RedissonClient redisson(RedisCluster cluster) {
        Config config = new Config();
        config.useClusterServers().setMasterConnectionMinimumIdleSize(2).setMasterConnectionPoolSize(8)
                .setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2).setTimeout(3000)
                .setNodeAddresses(cluster.nodeAddresses());
        return Redisson.create(config);
    }

    /** Redis server time in ms, read the same way the scripts read it. */
    public static long redisTimeMs(RedisServer server) {
        @SuppressWarnings("unchecked")
        List<Object> time = (List<Object>) server.command("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    /** Whether the server has Redis Functions (Redis 7 and later), which rmq then runs its scripts as. */
    public static boolean hasFunctions(RedisServer server) {
        return Integer.parseInt(server.version().split("\\.")[0]) >= 7;
    }

    /**
     * Makes the server forget rmq's scripts, as a restart without persistence does: the script cache, and on
     * Redis 7 the function libraries.
     */
    public static void forgetScripts(RedisServer server) {
        server.command("SCRIPT", "FLUSH");
        if (hasFunctions(server)) {
            server.command("FUNCTION", "FLUSH");
        }
    }

    /** The error INFO errorstats counts when a call finds its script forgotten: NOSCRIPT, or ERR for a function. */
    public static String forgottenScriptError(RedisServer server) {
        return hasFunctions(server) ? "ERR" : "NOSCRIPT";
    }

    /** A topic with fast leases and backoff, so failure tests run in seconds. */
    public static TopicDefinition topic(String name, TopicType type, int slots) {
        return TopicDefinition.builder(name, type).slotAmount(slots).leaseTimeout(Duration.ofSeconds(2))
                .maxRetries(2).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();
    }

    /** The next message {@code puller} hands out, which must come within 5 s. */
    public static <T> PulledMessage<T> pollOne(RmqPuller<T> puller) {
        List<PulledMessage<T>> got = puller.poll(1, Duration.ofSeconds(5));
        assertThat(got).as("a message within 5 s").hasSize(1);
        return got.get(0);
    }
}
