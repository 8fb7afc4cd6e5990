package dev.rmq;

import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.redisson.api.RedissonClient;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

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

    private final Deque<AutoCloseable> closing = new ArrayDeque<>();

    /** {@code resource}, closed after the test, after what was registered later. */
    protected <C extends AutoCloseable> C closedAfterTest(C resource) {
        closing.push(resource);
        return resource;
    }

    @AfterEach
    void closeWhatTheTestOpened() throws Exception {
        while (!closing.isEmpty()) {
            closing.pop().close();
        }
    }

    @BeforeEach
    void emptyRedis() {
        redis.command("FLUSHALL");
    }

    protected long redisTimeMs() {
        return Fixtures.redisTimeMs(redis);
    }

    /**
     * How many script calls Redis has counted since it started or since {@code CONFIG RESETSTAT}: FCALL of rmq's
     * functions where Redis has them, else EVALSHA, and EVAL.
     */
    protected static long scriptCalls() {
        Map<String, String> stats = redis.info("commandstats");
        long calls = 0;
        for (String command : List.of("fcall", "evalsha", "eval")) {
            calls += calls(stats, command);
        }
        return calls;
    }

    /**
     * How many times Redis has run {@code command} (lower case) since it started or since {@code CONFIG RESETSTAT},
     * inside scripts too.
     */
    protected static long commandCalls(String command) {
        return calls(redis.info("commandstats"), command);
    }

    private static long calls(Map<String, String> commandStats, String command) {
        return Long.parseLong(commandStats.getOrDefault("cmdstat_" + command, "calls=0,")
                .replaceAll("^calls=(\\d+),.*", "$1"));
    }
}
