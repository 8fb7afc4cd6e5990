package dev.rmq.benchmarks.journal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.outbox.jdbc.JdbcOutbox;
import dev.rmq.outbox.jdbc.OutboxListener;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.testsupport.db.MariaDbTestServer;
import dev.rmq.testsupport.db.PostgresTestServer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends through the transactional outbox against direct sends after the commit, on PostgreSQL and on MariaDB (when
 * its server is installed), in turn within each repetition, on one redis-server and database server this run starts.
 * Each send is one order: a transaction that inserts the order's row and commits, then the direct send; or that
 * inserts the row and the outbox's row in one transaction, which the relay then moves to Redis. Prints the rates as
 * medians with ranges, the outbox's rate as a ratio of the direct one of the same repetition, and the relay's lag
 * (from the commit until Redis took the message) at p50 and p99.
 *
 * <p>Arguments: {@code --reps N} (3), {@code --messages N} per mode and repetition (5,000), {@code --threads N} (4).
 */
public final class OutboxBench {

    private static final String TOPIC = "bench-outbox";

    private OutboxBench() {
    }

    /**
     * One repetition on one database: rates in orders per second, the relay's lags in ms while orders came as fast
     * as the threads could place them, and while they came at a steady {@value #PACED_RATE} a second.
     */
    record Round(double direct, double outbox, List<Double> lagsMs, List<Double> pacedLagsMs) {
    }

    /** The steady rate of the paced round, orders per second. */
    private static final int PACED_RATE = 200;

    public static void main(String[] args) throws Exception {
        int reps = 3;
        int messages = 5_000;
        int threads = 4;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int value = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--reps" -> reps = value;
                case "--messages" -> messages = value;
                case "--threads" -> threads = value;
                default -> throw new IllegalArgumentException("usage: outbox-bench [--reps N] [--messages N]"
                        + " [--threads N]");
            }
        }
        List<String> table = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            Config config = new Config();
            config.useSingleServer().setAddress(redis.address()).setConnectionPoolSize(32).setTimeout(30_000);
            RedissonClient redisson = Redisson.create(config);
            try (RmqClient client = RmqClient.builder(redisson).topic(TopicDefinition.builder(TOPIC,
                    TopicType.PRIORITY).slotAmount(16).build()).build()) {
                try (PostgresTestServer postgres = PostgresTestServer.start();
                     HikariDataSource database = pool(postgres.jdbcUrl(), threads)) {
                    table.add(run("PostgreSQL", database, client, redis, reps, messages, threads));
                }
                if (MariaDbTestServer.available()) {
                    try (MariaDbTestServer mariadb = MariaDbTestServer.start();
                         HikariDataSource database = pool(mariadb.jdbcUrl(), threads)) {
                        table.add(run("MariaDB", database, client, redis, reps, messages, threads));
                    }
                } else {
                    System.out.println("MariaDB is not installed here: " + MariaDbTestServer.missing());
                }
            } finally {
                redisson.shutdown();
            }
        }
        System.out.println();
        System.out.println("| database | direct sends/s | outbox sends/s | × direct | relay lag p50 / p99 at "
                + PACED_RATE + "/s | relay lag p50 / p99 at full speed |");
        System.out.println("|---|---|---|---|---|---|");
        table.forEach(System.out::println);
        System.exit(0);
    }

    private static String run(String name, HikariDataSource database, RmqClient client, RedisServer redis, int reps,
                              int messages, int threads) throws Exception {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS bench_orders (id VARCHAR(64))");
        }
        List<Double> lagsMs = Collections.synchronizedList(new ArrayList<>());
        try (JdbcOutbox outbox = JdbcOutbox.builder(database, client).pollInterval(Duration.ofMillis(10))
                .listener(new OutboxListener() {
                    @Override
                    public void relayed(String topic, Duration lag) {
                        lagsMs.add(lag.toNanos() / 1e6);
                    }
                }).build()) {
            outbox.start();
            // one shorter round of each, unmeasured, so that neither pays for compiling the code
            direct(database, client, messages / 5, threads, "warm");
            through(database, outbox, messages / 5, threads, "warm");
            awaitEmpty(database);
            List<Round> rounds = new ArrayList<>();
            for (int rep = 1; rep <= reps; rep++) {
                redis.command("FLUSHALL");
                lagsMs.clear();
                double direct = direct(database, client, messages, threads, "d" + rep);
                double viaOutbox = through(database, outbox, messages, threads, "o" + rep);
                awaitEmpty(database);
                List<Double> burst = List.copyOf(lagsMs);
                lagsMs.clear();
                paced(database, outbox, PACED_RATE * 5, "p" + rep);
                awaitEmpty(database);
                rounds.add(new Round(direct, viaOutbox, burst, List.copyOf(lagsMs)));
                System.out.printf("%s rep %d: direct %,.0f sends/s, outbox %,.0f sends/s, relay lag p50 %.1f ms,"
                        + " p99 %.1f ms at full speed, p50 %.1f ms, p99 %.1f ms at %d a second%n", name, rep, direct,
                        viaOutbox, percentile(burst, 0.5), percentile(burst, 0.99), percentile(lagsMs, 0.5),
                        percentile(lagsMs, 0.99), PACED_RATE);
            }
            return String.format("| %s | %s | %s | %s | %s / %s ms | %s / %s ms |", name,
                    median(rounds.stream().map(Round::direct).toList(), "%,.0f"),
                    median(rounds.stream().map(Round::outbox).toList(), "%,.0f"),
                    median(rounds.stream().map(r -> r.outbox() / r.direct()).toList(), "%.2f"),
                    median(rounds.stream().map(r -> percentile(r.pacedLagsMs(), 0.5)).toList(), "%.1f"),
                    median(rounds.stream().map(r -> percentile(r.pacedLagsMs(), 0.99)).toList(), "%.1f"),
                    median(rounds.stream().map(r -> percentile(r.lagsMs(), 0.5)).toList(), "%.1f"),
                    median(rounds.stream().map(r -> percentile(r.lagsMs(), 0.99)).toList(), "%.1f"));
        }
    }

    /** Orders placed one at a time at {@value #PACED_RATE} a second, through the outbox. */
    private static void paced(HikariDataSource database, JdbcOutbox outbox, int messages, String prefix)
            throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            long due = start + i * 1_000_000_000L / PACED_RATE;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            try (Connection connection = database.getConnection()) {
                connection.setAutoCommit(false);
                insertOrder(connection, prefix + "-" + i);
                outbox.send(connection, order(prefix + "-" + i));
                connection.commit();
            }
        }
    }

    /** Each order: its row committed, then sent at once. Returns orders per second. */
    private static double direct(HikariDataSource database, RmqClient client, int messages, int threads,
                                 String prefix) throws Exception {
        return parallel(messages, threads, i -> {
            try (Connection connection = database.getConnection()) {
                connection.setAutoCommit(false);
                insertOrder(connection, prefix + "-" + i);
                connection.commit();
            }
            client.producer().send(order(prefix + "-" + i));
        });
    }

    /** Each order: its row and its send's row committed together; the relay sends. Returns orders per second. */
    private static double through(HikariDataSource database, JdbcOutbox outbox, int messages, int threads,
                                  String prefix) throws Exception {
        return parallel(messages, threads, i -> {
            try (Connection connection = database.getConnection()) {
                connection.setAutoCommit(false);
                insertOrder(connection, prefix + "-" + i);
                outbox.send(connection, order(prefix + "-" + i));
                connection.commit();
            }
        });
    }

    private interface Order {
        void place(int index) throws Exception;
    }

    private static double parallel(int messages, int threads, Order order) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < messages; i = next.getAndIncrement()) {
                    order.place(i);
                }
                return null;
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
        pool.shutdown();
        return messages / ((System.nanoTime() - start) / 1e9);
    }

    private static void insertOrder(Connection connection, String id) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO bench_orders VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private static OutgoingMessage order(String id) {
        return OutgoingMessage.priority(TOPIC, "{\"order\":\"" + id + "\"}", 50).withKey(id);
    }

    private static void awaitEmpty(HikariDataSource database) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
                 var result = statement.executeQuery("SELECT count(*) FROM rmq_outbox")) {
                result.next();
                if (result.getLong(1) == 0) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the relay did not empty the outbox within 5 minutes");
    }

    private static double percentile(List<Double> values, double q) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get((int) Math.min(sorted.size() - 1, Math.floor(q * sorted.size())));
    }

    private static String median(List<Double> values, String format) {
        List<Double> sorted = values.stream().sorted().toList();
        return String.format(format + " (" + format + " to " + format + ")", sorted.get(sorted.size() / 2),
                sorted.get(0), sorted.get(sorted.size() - 1));
    }

    private static HikariDataSource pool(String jdbcUrl, int threads) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(threads + 4);
        return new HikariDataSource(config);
    }
}
