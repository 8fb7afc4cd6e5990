package dev.rmq.journal.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageJournal;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.awaitility.Awaitility.await;

/**
 * A real redis-server and a real database server per test class (PostgreSQL, unless the subclass starts another), a
 * journal and a client on them per test, with tables and Redis emptied between tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JournalTestBase {

    static final String RANGE = "journal-range";
    static final String PRIORITY = "journal-priority";
    static final String FIXED = "journal-fixed";
    static final String ONCE = "journal-once";
    /** Sends what its time to live ran out on to the dead queue. */
    static final String EXPIRING = "journal-expiring";
    /** Priority and fixed-time topics whose retries wait an hour. */
    static final String SLOW_PRIORITY = "journal-slow-priority";
    static final String SLOW_FIXED = "journal-slow-fixed";

    RedisServer redis;
    RedissonClient redisson;
    DataSource dataSource;
    JdbcJournal journal;
    RmqClient client;
    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();

    private final PostgresDatabase postgres = new PostgresDatabase();

    /** Starts the database server and returns a DataSource of it: PostgreSQL, unless a subclass starts another. */
    DataSource startDatabase() {
        return postgres.start();
    }

    void stopDatabase() {
        postgres.stop();
    }

    @BeforeAll
    void startServers() {
        redis = RedisTestServers.newStandalone();
        dataSource = startDatabase();
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                .setRetryAttempts(1).setTimeout(3000);
        redisson = Redisson.create(config);
    }

    @AfterAll
    void stopServers() {
        try {
            redisson.shutdown();
        } finally {
            try {
                redis.close();
            } finally {
                stopDatabase();
            }
        }
    }

    @BeforeEach
    void emptyBoth() throws SQLException {
        redis.command("FLUSHALL");
        // the schema exists once any journal was built; empty it when it does
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            if (connection.getMetaData().getTables(null, null, "rmq_transitions", null).next()
                    || connection.getMetaData().getTables(null, null, "RMQ_TRANSITIONS", null).next()) {
                statement.executeUpdate("DELETE FROM rmq_transitions");
                statement.executeUpdate("DELETE FROM rmq_messages");
            }
        }
    }

    @AfterEach
    void closeClientAndJournal() throws Exception {
        for (int i = closeAfterTest.size() - 1; i >= 0; i--) {
            closeAfterTest.get(i).close();
        }
        closeAfterTest.clear();
    }

    /** A journal with {@code settings}, a client that journals into it, both closed after the test. */
    void open(Consumer<JdbcJournal.Builder> settings) {
        JdbcJournal.Builder builder = JdbcJournal.builder(dataSource).host("test-host");
        settings.accept(builder);
        journal = builder.build();
        closeAfterTest.add(journal);
        client = RmqClient.builder(redisson).topics(topics()).journal(journal).build();
        closeAfterTest.add(client);
    }

    <T extends AutoCloseable> T closeAfter(T closeable) {
        closeAfterTest.add(closeable);
        return closeable;
    }

    static List<TopicDefinition> topics() {
        return List.of(topic(RANGE, TopicType.RANGE_MERGE), topic(PRIORITY, TopicType.PRIORITY),
                topic(FIXED, TopicType.FIXED_TIME), TopicDefinition.builder(ONCE, TopicType.PRIORITY).slotAmount(2)
                        .delivery(DeliveryGuarantee.AT_MOST_ONCE).build(),
                TopicDefinition.builder(EXPIRING, TopicType.PRIORITY).slotAmount(2).expiry(ExpiryAction.DEAD).build(),
                TopicDefinition.builder(SLOW_PRIORITY, TopicType.PRIORITY).slotAmount(2)
                        .backoff(BackoffPolicy.fixed(Duration.ofHours(1))).build(),
                TopicDefinition.builder(SLOW_FIXED, TopicType.FIXED_TIME).slotAmount(2)
                        .backoff(BackoffPolicy.fixed(Duration.ofHours(1))).build());
    }

    private static TopicDefinition topic(String name, TopicType type) {
        return TopicDefinition.builder(name, type).slotAmount(4).leaseTimeout(Duration.ofSeconds(5)).maxRetries(3)
                .backoff(BackoffPolicy.fixed(Duration.ofMillis(50))).build();
    }

    /** One journaled message's row: its state, attempts and whether it is finished. */
    record MessageRow(long id, String key, String state, int attempts, boolean finished, long score) {
    }

    List<MessageRow> messages(String topic) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT id, msg_key, state, attempts, finished,"
                     + " score FROM rmq_messages WHERE topic = ? ORDER BY id")) {
            select.setString(1, topic);
            List<MessageRow> rows = new ArrayList<>();
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    rows.add(new MessageRow(result.getLong(1), result.getString(2), result.getString(3),
                            result.getInt(4), result.getBoolean(5), result.getLong(6)));
                }
            }
            return rows;
        }
    }

    /** The Redis clock in ms, by which times to live run out. */
    long redisTimeMs() {
        List<?> time = (List<?>) redis.command("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    MessageRow message(String topic, String key) throws SQLException {
        return messages(topic).stream().filter(row -> row.key().equals(key)).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no journaled message " + topic + "/" + key));
    }

    /** A message's transitions, oldest first, as state words. */
    List<String> transitions(long messageId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT state, attempt, worker, host FROM"
                     + " rmq_transitions WHERE message_id = ? ORDER BY id")) {
            select.setLong(1, messageId);
            List<String> states = new ArrayList<>();
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    states.add(result.getString(1));
                }
            }
            return states;
        }
    }

    long count(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    /** Sessions of the test's database that wait for a row lock. */
    long waitingOnALock() throws SQLException {
        return count("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
    }

    /** The row of a send of priority 100 to slot 0 of {@link #PRIORITY}, as a producer's journal writes it. */
    static Row.Sent prioritySend(String key, Instant at, boolean merged, boolean behindDelivery) {
        return prioritySend(key, at, merged, behindDelivery, null);
    }

    /** As {@link #prioritySend(String, Instant, boolean, boolean)}, naming its send {@code sendId} (or none). */
    static Row.Sent prioritySend(String key, Instant at, boolean merged, boolean behindDelivery,
                                 @Nullable String sendId) {
        return new Row.Sent(new JournaledSend(PRIORITY, TopicType.PRIORITY, 0, key, merged, false, behindDelivery, 100,
                null, null, sendId == null ? Map.of() : Map.of(MessageJournal.SEND_ID_HEADER, sendId), new byte[] {1},
                at), null);
    }

    /** The next message the puller takes, within 10 s. */
    static PulledMessage<String> pollOne(RmqPuller<String> puller) {
        List<PulledMessage<String>> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(puller.poll(1, Duration.ofMillis(500)));
            return !got.isEmpty();
        });
        return got.get(0);
    }
}
