package dev.rmq.benchmarks;

import dev.rmq.embedded.RedisServer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The benchmark command. Starts its own redis-server on a free loopback port, runs every case against it
 * with one Redisson client ({@link BenchRun}), and exits non-zero when a case fails or an output cannot be
 * written.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            if (message != null && !message.isEmpty()) {
                System.err.println(message);
            }
            System.err.print(Options.usage());
            System.exit(2);
            return;
        }
        System.setProperty("java.awt.headless", "true");
        long started = System.nanoTime();
        boolean complete;
        try (RedisServer server = RedisServer.start()) {
            RedisProbe probe = new RedisProbe(server);
            RedissonClient redisson = redisson(server);
            try {
                complete = new BenchRun(options, probe, redisson).run(started);
            } finally {
                redisson.shutdown();
            }
        } catch (RuntimeException e) {
            // a case or an output failed: say so, and exit non-zero even if some thread would keep the JVM up
            e.printStackTrace();
            complete = false;
        }
        if (!complete) {
            System.exit(1);
        }
    }

    static RedissonClient redisson(RedisServer server) {
        Config config = new Config();
        config.setNettyThreads(8);
        config.useSingleServer().setAddress(server.address()).setConnectionMinimumIdleSize(16)
                .setConnectionPoolSize(128).setSubscriptionConnectionPoolSize(8).setTimeout(30_000)
                .setRetryAttempts(0);
        return Redisson.create(config);
    }
}
