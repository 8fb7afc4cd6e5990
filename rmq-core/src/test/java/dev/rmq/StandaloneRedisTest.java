package dev.rmq;

import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.redisson.api.RedissonClient;

/** Base of the tests that share one real standalone redis-server per class, emptied before each test. */
public abstract class StandaloneRedisTest {

    protected static RedisServer redis;
    protected static RedissonClient redisson;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServers.newStandalone();
        redisson = Fixtures.redisson(redis);
    }

    @AfterAll
    static void stopRedis() {
        try {
            if (redisson != null) {
                redisson.shutdown();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @BeforeEach
    void emptyRedis() {
        redis.command("FLUSHALL");
    }

    protected long redisTimeMs() {
        return Fixtures.redisTimeMs(redis);
    }

    /** How many EVALSHA calls Redis has counted since it started or since {@code CONFIG RESETSTAT}. */
    protected static long evalshaCalls() {
        String calls = redis.info("commandstats").getOrDefault("cmdstat_evalsha", "calls=0,");
        return Long.parseLong(calls.replaceAll("^calls=(\\d+),.*", "$1"));
    }
}
