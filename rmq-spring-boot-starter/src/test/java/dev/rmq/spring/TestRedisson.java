package dev.rmq.spring;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson clients for the tests that watch what rmq does when Redis stops answering. */
public final class TestRedisson {

    private TestRedisson() {
    }

    /**
     * A client of one Redis that never retries and gives a command {@code timeoutMs} to answer, so that a stalled or
     * missing Redis fails a call within that time instead of after Redisson's retries.
     */
    public static RedissonClient impatient(String address, int timeoutMs) {
        Config config = new Config();
        config.useSingleServer().setAddress(address).setRetryAttempts(0).setTimeout(timeoutMs);
        return Redisson.create(config);
    }
}
