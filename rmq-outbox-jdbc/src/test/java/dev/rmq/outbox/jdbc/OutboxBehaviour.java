package dev.rmq.outbox.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the outbox does, run against each database by a subclass: a real redis-server and database server per class,
 * tables and Redis emptied between tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxBehaviour {

    private static final TopicDefinition ORDERS = TopicDefinition.builder("orders", TopicType.PRIORITY)
            .slotAmount(4).build();
    private static final TopicDefinition CAPPED = TopicDefinition.builder("capped", TopicType.PRIORITY)
            .slotAmount(1).maxBacklog(1).build();
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private RedisServer redis;
    private DataSource dataSource;
    private final Deque<AutoCloseable> closing = new ArrayDeque<>();

    /** Starts the database server and returns a DataSource of it. */
    abstract DataSource startDatabase();

    /** The JDBC URL of the database {@link #startDatabase()} started, for another JVM. */
    abstract String jdbcUrl();

    abstract void stopDatabase();

    @BeforeAll
    void startServers() {
        redis = RedisTestServers.newStandalone();
        dataSource = startDatabase();
    }

    @AfterAll
    void stopServers() {
        try {
            redis.close();
        } finally {
            stopDatabase();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        redis.command("FLUSHALL");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            if (connection.getMetaData().getTables(null, null, "rmq_outbox", null).next()) {
                statement.executeUpdate("DELETE FROM rmq_outbox");
            }
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        while (!closing.isEmpty()) {
            closing.pop().close();
        }
    }

    private <C extends AutoCloseable> C closedAfterTest(C resource) {
        closing.push(resource);
        return resource;
    }

    private RmqClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(8).setRetryAttempts(1).setTimeout(2000);
        RedissonClient redisson = Redisson.create(config);
        closing.push(redisson::shutdown);
        return closedAfterTest(RmqClient.builder(redisson).topic(ORDERS).topic(CAPPED).build());
    }

    private JdbcOutbox outbox(RmqClient client) {
        return closedAfterTest(JdbcOutbox.builder(dataSource, client).pollInterval(Duration.ofMillis(20)).build());
    }

    private static OutgoingMessage order(String key, String payload) {
        return OutgoingMessage.priority("orders", payload, 50).withKey(key);
    }

    /** Writes {@code messages} in one transaction, with a row of the application's own, and commits or rolls back. */
    private void inTransaction(JdbcOutbox outbox, boolean commit, List<OutgoingMessage> messages) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            outbox.sendAll(connection, messages);
            if (commit) {
                connection.commit();
            } else {
                connection.rollback();
            }
        }
    }

    private long rows() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT count(*) FROM rmq_outbox")) {
            result.next();
            return result.getLong(1);
        }
    }

    private static long waiting(RmqClient client, String topic) {
        return client.inspector().counts(topic).total().waiting();
    }

    @Test
    void aCommittedSendArrivesOnceAndItsRowGoes() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        inTransaction(outbox, true, List.of(order("o-1", "first").withHeader("tenant", "acme")
                .withTtl(Duration.ofHours(1))));
        assertThat(client.producer().get(MessageRef.of("orders", "o-1"))).as("not before the relay").isEmpty();

        outbox.start();

        await().atMost(PATIENCE).until(() -> client.producer().get(MessageRef.of("orders", "o-1")).isPresent());
        var stored = client.producer().get(MessageRef.of("orders", "o-1")).orElseThrow();
        assertThat(stored.payloadText()).isEqualTo("first");
        assertThat(stored.headers()).containsEntry("tenant", "acme");
        assertThat(stored.expiresAt()).isPresent();
        // counted once the batch's deletion has committed
        await().atMost(PATIENCE).until(() -> outbox.stats().relayed() == 1);
        assertThat(rows()).isZero();
        assertThat(waiting(client, "orders")).isEqualTo(1);
    }

    @Test
    void aRolledBackSendNeverArrives() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        outbox.start();

        inTransaction(outbox, false, List.of(order("o-2", "never")));
        inTransaction(outbox, true, List.of(order("o-3", "after it")));

        await().atMost(PATIENCE).until(() -> outbox.stats().relayed() == 1);
        assertThat(client.producer().get(MessageRef.of("orders", "o-2"))).isEmpty();
        assertThat(waiting(client, "orders")).isEqualTo(1);
        assertThat(rows()).isZero();
    }

    @Test
    void sendsOfOneKeyArriveInOrderAndMerge() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        inTransaction(outbox, true, List.of(order("same", "one"), order("same", "two"), order("same", "three")));
        outbox.start();

        await().atMost(PATIENCE).until(() -> outbox.stats().relayed() == 3);
        assertThat(client.producer().get(MessageRef.of("orders", "same")).orElseThrow().payloadText())
                .as("the last send's content").isEqualTo("three");
        assertThat(waiting(client, "orders")).isEqualTo(1);
    }

    @Test
    void aMessageWithoutAKeyOfItsOwnKeepsTheKeyOfItsPayloadSoASecondRelayMerges() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        inTransaction(outbox, true, List.of(OutgoingMessage.priority("orders", "{\"order\":7}", 50)));
        String key = client.producer().atOnce().send(OutgoingMessage.priority("orders", "{\"order\":7}", 50)).key();
        outbox.start();

        await().atMost(PATIENCE).until(() -> outbox.stats().relayed() == 1);
        assertThat(waiting(client, "orders")).as("merged into the direct send of the same payload").isEqualTo(1);
        assertThat(client.producer().get(MessageRef.of("orders", key))).isPresent();
    }

    @Test
    void anErrorFromTheRelaysListenerDoesNotEndTheRelay() throws SQLException {
        RmqClient client = client();
        inTransaction(outbox(client), true, List.of(order("e-1", "first"), order("e-2", "second")));
        AtomicInteger heard = new AtomicInteger();
        OutboxListener failingOnce = new OutboxListener() {
            @Override
            public void relayed(String topic, Duration lag) {
                if (heard.incrementAndGet() == 1) {
                    throw new AssertionError("a listener's own check");
                }
            }
        };
        JdbcOutbox relay = closedAfterTest(JdbcOutbox.builder(dataSource, client).migrate(false).batchSize(1)
                .pollInterval(Duration.ofMillis(20)).listener(failingOnce).build());
        relay.start();

        // one row a batch: the second is relayed only if the relay went on after the first batch's error
        await().atMost(Duration.ofSeconds(10)).until(() -> rows() == 0);
        assertThat(client.producer().get(MessageRef.of("orders", "e-2"))).isPresent();
    }

    @Test
    void aBatchWhoseFinishFindsNoConnectionAtFirstIsFinishedWithinItsClaim() throws SQLException {
        RmqClient client = client();
        inTransaction(outbox(client), true, List.of(order("f-1", "finished")));
        // the relay's second connection, the one that records what Redis took, cannot be had at first
        AtomicInteger connections = new AtomicInteger();
        DataSource failingOnce = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && connections.incrementAndGet() == 2) {
                        throw new SQLException("connection refused", "08001");
                    }
                    try {
                        return method.invoke(dataSource, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        JdbcOutbox relay = closedAfterTest(JdbcOutbox.builder(failingOnce, client).migrate(false)
                .pollInterval(Duration.ofMillis(20)).claimTimeout(Duration.ofMinutes(1)).build());
        relay.start();

        // well within the claim, after which another relay would send the row again
        await().atMost(Duration.ofSeconds(10)).until(() -> rows() == 0);
        assertThat(connections.get()).isGreaterThan(2);
        assertThat(relay.stats().relayed()).isEqualTo(1);
    }

    @Test
    void twoRelaysShareOneOutboxAndNoRowGoesTwice() throws SQLException {
        List<OutgoingMessage> messages = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            messages.add(order("k-" + i, "m-" + i));
        }
        JdbcOutbox writer = outbox(client());
        for (int from = 0; from < messages.size(); from += 200) {
            inTransaction(writer, true, messages.subList(from, from + 200));
        }
        RmqClient first = client();
        // small batches: 200 of them, so that both relays are at work for far longer than the two starts lie apart
        JdbcOutbox one = closedAfterTest(JdbcOutbox.builder(dataSource, first).batchSize(10)
                .pollInterval(Duration.ofMillis(20)).build());
        JdbcOutbox two = closedAfterTest(JdbcOutbox.builder(dataSource, client()).batchSize(10)
                .pollInterval(Duration.ofMillis(20)).build());

        one.start();
        two.start();

        await().atMost(PATIENCE).until(() -> rows() == 0);
        // each row relayed by one of them, once: counted as each batch's deletion commits
        await().atMost(PATIENCE).until(() -> one.stats().relayed() + two.stats().relayed() >= 2_000);
        assertThat(one.stats().relayed() + two.stats().relayed()).isEqualTo(2_000);
        assertThat(one.stats().relayed()).as("both took part").isPositive();
        assertThat(two.stats().relayed()).isPositive();
        assertThat(waiting(first, "orders")).isEqualTo(2_000);
    }

    @Test
    void aSendRedisRefusesStaysInTheOutboxIsReportedAndGoesOnceThereIsRoom() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        inTransaction(outbox, true, List.of(OutgoingMessage.priority("capped", "first", 50).withKey("c-1"),
                OutgoingMessage.priority("capped", "second", 50).withKey("c-2")));
        outbox.start();

        await().atMost(PATIENCE).until(() -> outbox.stats().refusals() >= 1);
        assertThat(rows()).as("the refused send waits in the outbox").isEqualTo(1);
        await().atMost(PATIENCE).until(() -> outbox.stats().refused() == 1);
        assertThat(outbox.stats().oldestAge()).isPositive();

        RmqPuller<String> puller = closedAfterTest(client.puller(String.class).topics("capped").build());
        puller.start();
        List<PulledMessage<String>> taken = puller.poll(1, Duration.ofSeconds(5));
        assertThat(taken).extracting(PulledMessage::payload).containsExactly("first");
        puller.ackAll(taken);

        await().atMost(PATIENCE).until(() -> rows() == 0);
        assertThat(client.producer().get(MessageRef.of("capped", "c-2")).orElseThrow().payloadText())
                .isEqualTo("second");
    }

    @Test
    void aRowThisVersionCannotReadStaysAsideAndTheRowsAfterItGoOn() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        // a type a newer version might write, ahead of every other row
        try (Connection connection = dataSource.getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO rmq_outbox (topic, type, msg_key,"
                     + " type_value, headers, payload, created_at) VALUES ('orders', 'X', 'x-1', 0, '{}', ?,"
                     + " CURRENT_TIMESTAMP)")) {
            insert.setBytes(1, new byte[0]);
            insert.executeUpdate();
        }
        inTransaction(outbox, true, List.of(order("u-1", "after"), order("u-2", "the unreadable row")));
        outbox.start();

        await().atMost(PATIENCE).until(() -> rows() == 1);
        assertThat(client.producer().get(MessageRef.of("orders", "u-1"))).isPresent();
        assertThat(client.producer().get(MessageRef.of("orders", "u-2"))).isPresent();
        assertThat(outbox.refused(10)).singleElement().satisfies(row -> {
            assertThat(row.key()).isEqualTo("x-1");
            assertThat(row.lastError()).contains("cannot read the row").contains("'X'");
        });
    }

    @Test
    void whileRedisIsDownNothingIsLostAndTheRelayCarriesOnOnceItIsBack() throws SQLException {
        RmqClient client = client();
        JdbcOutbox outbox = outbox(client);
        outbox.start();
        redis.stop();
        try {
            inTransaction(outbox, true, List.of(order("d-1", "during"), order("d-2", "the outage")));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> rows() == 2);
        } finally {
            redis.restart();
        }

        await().atMost(PATIENCE).until(() -> rows() == 0);
        assertThat(client.producer().get(MessageRef.of("orders", "d-1"))).isPresent();
        assertThat(client.producer().get(MessageRef.of("orders", "d-2"))).isPresent();
    }

    @Test
    void badInputFailsWhereItIsWrittenAndWritesNothing() throws SQLException {
        JdbcOutbox outbox = outbox(client());

        assertThatThrownBy(() -> inTransaction(outbox, true, List.of(order("ok", "fine"),
                OutgoingMessage.priority("no-such-topic", "x", 50))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-topic");
        assertThatThrownBy(() -> inTransaction(outbox, true, List.of(
                OutgoingMessage.rangeMerge("orders", "x", Duration.ofSeconds(1)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders");
        assertThat(rows()).isZero();
    }

    /**
     * An application killed (SIGKILL) while it writes orders with their sends and relays them: once a relay runs
     * again, every order it committed has its message in Redis, once, and no other.
     */
    @Test
    void afterAKillEveryCommittedSendArrivesOnce() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS kill_orders (id VARCHAR(64))");
            statement.executeUpdate("DELETE FROM kill_orders");
        }
        outbox(client()).close();  // the table exists before the application starts
        Process application = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                OutboxApplication.class.getName(), redis.address(), jdbcUrl(), "2000").redirectErrorStream(true)
                .start();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(application.getInputStream()))) {
            String line;
            // mid-way: orders being written, sends being relayed, a batch perhaps claimed and sent, not yet deleted
            while ((line = lines.readLine()) != null && !line.equals("committed 700")) {
                assertThat(line).as("the application's output").doesNotContain("Exception");
            }
            assertThat(line).as("the application stopped early").isNotNull();
        } finally {
            application.destroyForcibly().waitFor();
        }
        List<String> committed = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT id FROM kill_orders")) {
            while (result.next()) {
                committed.add(result.getString(1));
            }
        }
        assertThat(committed.size()).isBetween(700, 2_000);

        RmqClient client = client();
        closedAfterTest(JdbcOutbox.builder(dataSource, client).claimTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20)).build()).start();

        await().atMost(PATIENCE).until(() -> rows() == 0);
        assertThat(waiting(client, "orders")).as("one message per committed order").isEqualTo(committed.size());
        for (String key : committed) {
            assertThat(client.producer().get(MessageRef.of("orders", key))).as("the message of %s", key).isPresent();
        }
    }

    private static String java() {
        return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
