package dev.rmq.benchmarks.journal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.embedded.RedisServer;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.journal.jdbc.RestoreReport;
import dev.rmq.journal.jdbc.RestoreRequest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.testsupport.db.PostgresTestServer;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends and consumes the same messages with the journal off, asynchronous (with finished messages pruned at once,
 * and with a history of finished messages kept), and synchronous, in turn within each repetition (the order
 * rotates, after a shorter unmeasured round of each), on one redis-server and one PostgreSQL this run starts; then
 * journals a backlog and times its restore after a FLUSHALL. Prints medians with ranges, and each case's rate as a
 * ratio of the unjournaled rate of the same repetition.
 *
 * <p>Arguments: {@code --reps N} (3), {@code --messages N} per case and repetition (20,000), {@code --history N}
 * finished messages the history case finds in the tables (500,000), {@code --restore N} (100,000).
 */
public final class JournalBench {

    private static final String TOPIC = "bench-journal";
    private static final int SLOTS = 16;
    private static final int PRODUCERS = 4;
    private static final int BATCH = 100;

    private JournalBench() {
    }

    /** One mode's rates in one repetition, messages per second. */
    record Rates(double produce, double consume, long gap) {
    }

    /** What is measured: the journal's mode, and what becomes of the messages it finished. */
    enum Case {
        OFF("off", JournalMode.OFF),
        ASYNC_PRUNED("async, finished pruned at once", JournalMode.ASYNC),
        ASYNC_HISTORY("async, history kept", JournalMode.ASYNC),
        SYNC("sync", JournalMode.SYNC);

        final String label;
        final JournalMode mode;

        Case(String label, JournalMode mode) {
            this.label = label;
            this.mode = mode;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, Integer> options = parse(args);
        int reps = options.getOrDefault("reps", 3);
        int messages = options.getOrDefault("messages", 20_000);
        int restoreCount = options.getOrDefault("restore", 100_000);
        int history = options.getOrDefault("history", 500_000);
        List<Map<Case, Rates>> rounds = new ArrayList<>();
        try (RedisServer redis = RedisServer.start(); PostgresTestServer postgres = PostgresTestServer.start();
             HikariDataSource database = pool(postgres)) {
            RedissonClient redisson = redisson(redis);
            try {
                List<Case> order = new ArrayList<>(List.of(Case.values()));
                // one round of each case unmeasured, so that no case's first round pays for compiling the code
                for (Case measured : order) {
                    redis.command("FLUSHALL");
                    empty(database);
                    produceAndConsume(redisson, database, measured, messages / 4);
                }
                for (int rep = 1; rep <= reps; rep++) {
                    Map<Case, Rates> round = new EnumMap<>(Case.class);
                    for (Case measured : order) {
                        redis.command("FLUSHALL");
                        empty(database);
                        if (measured == Case.ASYNC_HISTORY) {
                            fillHistory(database, history);
                        }
                        Rates rates = produceAndConsume(redisson, database, measured, messages);
                        round.put(measured, rates);
                        System.out.printf("rep %d %-31s produce %,9.0f msgs/s  consume %,9.0f msgs/s  rows dropped %d%n",
                                rep, measured.label, rates.produce(), rates.consume(), rates.gap());
                    }
                    rounds.add(round);
                    order.add(order.remove(0));
                }
                report(rounds);
                restore(redis, redisson, database, restoreCount, reps);
            } finally {
                redisson.shutdown();
            }
        }
        System.exit(0);
    }

    private static Rates produceAndConsume(RedissonClient redisson, HikariDataSource database, Case measured,
                                           int messages) throws Exception {
        JdbcJournal journal = null;
        if (measured == Case.ASYNC_PRUNED) {
            // a finished message goes at the writer's next look, once a second: no history to read back
            journal = JdbcJournal.builder(database).mode(measured.mode).retention(Duration.ofMillis(1))
                    .pruneInterval(Duration.ofSeconds(1)).build();
        } else if (measured != Case.OFF) {
            journal = JdbcJournal.builder(database).mode(measured.mode).build();
        }
        RmqClient.Builder builder = RmqClient.builder(redisson).topic(topic());
        if (journal != null) {
            builder.journal(journal);
        }
        try (RmqClient client = builder.build()) {
            long start = System.nanoTime();
            ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                done.add(producers.submit(() -> {
                    for (int i = producer * BATCH; i < messages; i += PRODUCERS * BATCH) {
                        List<OutgoingMessage> batch = new ArrayList<>(BATCH);
                        for (int j = i; j < Math.min(messages, i + BATCH); j++) {
                            batch.add(OutgoingMessage.priority(TOPIC, "{\"order\":" + j + "}", 100 + j % 50)
                                    .withKey("m-" + j));
                        }
                        client.producer().sendAll(batch);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
            producers.shutdown();
            double produce = messages / seconds(start);

            AtomicLong consumed = new AtomicLong();
            start = System.nanoTime();
            RmqConsumerContainer<String> container = client.container(TOPIC, String.class, message -> {
                consumed.incrementAndGet();
                return ConsumeResult.success();
            }).concurrency(4).batchSize(BATCH).build();
            container.start();
            while (consumed.get() < messages) {
                Thread.sleep(5);
            }
            double consume = messages / seconds(start);
            container.stop(Duration.ofSeconds(10));
            long gap = 0;
            if (journal != null) {
                journal.flush(Duration.ofMinutes(5));
                gap = journal.stats().gap();
            }
            return new Rates(produce, consume, gap);
        } finally {
            if (journal != null) {
                journal.close();
            }
        }
    }

    private static void restore(RedisServer redis, RedissonClient redisson, HikariDataSource database, int count,
                                int reps) throws Exception {
        List<Double> rates = new ArrayList<>();
        List<Double> noops = new ArrayList<>();
        for (int rep = 1; rep <= reps; rep++) {
            redis.command("FLUSHALL");
            empty(database);
            try (JdbcJournal journal = JdbcJournal.builder(database).mode(JournalMode.ASYNC).batchSize(2_000).build();
                 RmqClient client = RmqClient.builder(redisson).topic(topic()).journal(journal).build()) {
                for (int i = 0; i < count; i += 1_000) {
                    List<OutgoingMessage> batch = new ArrayList<>(1_000);
                    for (int j = i; j < Math.min(count, i + 1_000); j++) {
                        batch.add(OutgoingMessage.priority(TOPIC, "{\"order\":" + j + "}", 100 + j % 50).withKey("r-" + j));
                    }
                    client.producer().sendAll(batch);
                }
                journal.flush(Duration.ofMinutes(5));
                redis.command("FLUSHALL");
                RestoreReport report = journal.restore(client, RestoreRequest.all());
                if (report.restored() != count) {
                    throw new IllegalStateException("restore put back " + report.restored() + " of " + count);
                }
                rates.add(count / (report.took().toNanos() / 1e9));
                RestoreReport again = journal.restore(client, RestoreRequest.all());
                noops.add(count / (again.took().toNanos() / 1e9));
                System.out.printf("rep %d restore of %,d: %,.0f msgs/s (%d ms); again, all present: %,.0f msgs/s%n",
                        rep, count, rates.get(rates.size() - 1), report.took().toMillis(), noops.get(noops.size() - 1));
            }
        }
        System.out.printf("%nrestore of %,d messages: median %s msgs/s; a second run (a no-op): median %s msgs/s%n",
                count, median(rates), median(noops));
    }

    private static void report(List<Map<Case, Rates>> rounds) {
        System.out.println();
        System.out.println("| journal | produce msgs/s | × off | consume msgs/s | × off |");
        System.out.println("|---|---|---|---|---|");
        for (Case measured : Case.values()) {
            List<Double> produce = new ArrayList<>();
            List<Double> consume = new ArrayList<>();
            List<Double> produceRatio = new ArrayList<>();
            List<Double> consumeRatio = new ArrayList<>();
            for (Map<Case, Rates> round : rounds) {
                // every round measures every case
                Rates rates = Objects.requireNonNull(round.get(measured), "a round without " + measured);
                Rates off = Objects.requireNonNull(round.get(Case.OFF), "a round without OFF");
                produce.add(rates.produce());
                consume.add(rates.consume());
                produceRatio.add(rates.produce() / off.produce());
                consumeRatio.add(rates.consume() / off.consume());
            }
            System.out.printf("| %s | %s | %s | %s | %s |%n", measured.label, median(produce),
                    ratio(produceRatio), median(consume), ratio(consumeRatio));
        }
    }

    private static String median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return String.format("%,.0f (%,.0f to %,.0f)", sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }

    private static String ratio(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return String.format("%.2f (%.2f to %.2f)", sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static TopicDefinition topic() {
        return TopicDefinition.builder(TOPIC, TopicType.PRIORITY).slotAmount(SLOTS).build();
    }

    private static void empty(HikariDataSource database) throws Exception {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            if (connection.getMetaData().getTables(null, null, "rmq_messages", null).next()) {
                statement.executeUpdate("TRUNCATE rmq_transitions, rmq_messages");
            }
        }
    }

    /**
     * Writes {@code count} finished messages, each with the three transitions of a message sent, delivered and
     * acknowledged, as a week of history at a steady rate would leave them: what a history case finds in the tables.
     */
    private static void fillHistory(HikariDataSource database, int count) throws Exception {
        long start = System.nanoTime();
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            if (!connection.getMetaData().getTables(null, null, "rmq_messages", null).next()) {
                // the tables come with the first journal built; the warm-up round builds one
                return;
            }
            statement.executeUpdate("INSERT INTO rmq_messages (topic, msg_key, slot, type, score, headers, payload,"
                    + " created_at, state, attempts, finished, updated_at) SELECT '" + TOPIC + "', 'h-' || g, g % "
                    + SLOTS + ", 'P', 100, '{}', convert_to('{\"order\":' || g || '}', 'UTF8'), now(), 'acked', 1,"
                    + " TRUE, now() FROM generate_series(1, " + count + ") g");
            statement.executeUpdate("INSERT INTO rmq_transitions (message_id, state, attempt, at, worker, host)"
                    + " SELECT m.id, s.state, s.attempt, now(), 'bench-worker', 'bench-host' FROM rmq_messages m"
                    + " CROSS JOIN (VALUES ('sent', 0), ('delivered', 1), ('acked', 1)) AS s(state, attempt)");
            statement.execute("ANALYZE rmq_messages");
            statement.execute("ANALYZE rmq_transitions");
            try (ResultSet size = statement.executeQuery("SELECT pg_total_relation_size('rmq_messages')"
                    + " + pg_total_relation_size('rmq_transitions')")) {
                size.next();
                System.out.printf("history of %,d finished messages written in %.1f s: %,d bytes each, indexes"
                        + " included%n", count, seconds(start), size.getLong(1) / count);
            }
        }
    }

    private static HikariDataSource pool(PostgresTestServer postgres) {
        HikariConfig config = new HikariConfig();
        // the driver sends a batch of inserts as multi-row statements, as the journal's documentation advises
        config.setJdbcUrl(postgres.jdbcUrl() + "&reWriteBatchedInserts=true");
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    private static RedissonClient redisson(RedisServer server) {
        Config config = new Config();
        config.useSingleServer().setAddress(server.address()).setConnectionMinimumIdleSize(8)
                .setConnectionPoolSize(32).setTimeout(30_000);
        return Redisson.create(config);
    }

    private static Map<String, Integer> parse(String[] args) {
        Map<String, Integer> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: journal-bench [--reps N] [--messages N] [--history N] [--restore N]");
            }
            options.put(args[i].substring(2), Integer.parseInt(args[i + 1]));
        }
        return options;
    }
}
