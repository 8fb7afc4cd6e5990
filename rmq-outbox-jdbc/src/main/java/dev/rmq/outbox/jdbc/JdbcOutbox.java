package dev.rmq.outbox.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PreparedMessage;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A transactional outbox: {@link #send(Connection, OutgoingMessage)} writes a send as a row on the application's
 * own connection, so that it commits or rolls back with the application's work, and the relay ({@link #start()})
 * moves the rows to Redis, in order, and deletes each once Redis has taken it. Nothing committed is lost to a crash
 * between the commit and the send: the row waits for the relay, on this instance or another.
 *
 * <p>A message is checked and encoded as a send is ({@code RmqClient.prepare}), with the client's codec, and keeps
 * its key, or gets the one derived from its payload when it has none (as a direct send would); the row holds both,
 * and the relay sends the payload's bytes as they are. A row sent twice (a relay that died between Redis's answer
 * and its commit) merges into the message of its key while that waits. A delay counts from when the row was
 * written. Relays of several instances share one table safely: each claims the rows it takes, so no row goes twice
 * while its claim lasts; see the package's documentation for the order.
 *
 * <pre>{@code
 * JdbcOutbox outbox = JdbcOutbox.builder(dataSource, client).build();
 * outbox.start();
 * try (Connection connection = dataSource.getConnection()) {
 *     connection.setAutoCommit(false);
 *     // ... the application's own writes ...
 *     outbox.send(connection, OutgoingMessage.fixedTime("order-timeout", orderId, payBy).withKey(orderId));
 *     connection.commit();
 * }
 * }</pre>
 */
public final class JdbcOutbox implements AutoCloseable {

    /** Flyway's history table for the outbox's schema, apart from an application's own. */
    public static final String HISTORY_TABLE = "rmq_outbox_schema_history";

    private static final Logger log = LoggerFactory.getLogger(JdbcOutbox.class);

    private final DataSource dataSource;
    private final RmqClient client;
    private final OutboxRelay relay;
    private final Duration closeTimeout;
    private @Nullable Thread relayThread;

    private JdbcOutbox(Builder b) {
        this.dataSource = b.dataSource;
        this.client = b.client;
        this.closeTimeout = b.closeTimeout;
        this.relay = new OutboxRelay(b.dataSource, b.client.producer().atOnce(), b.batchSize, b.pollInterval,
                b.claimTimeout, b.listener);
    }

    public static Builder builder(DataSource dataSource, RmqClient client) {
        return new Builder(dataSource, client);
    }

    /**
     * Writes {@code message} to the outbox on {@code connection}, in whatever transaction it is in: checked first
     * (its topic and type, its payload encoded), so that bad input fails here, inside the application's work.
     *
     * @throws IllegalArgumentException when the message does not fit the client's topics
     * @throws SQLException             when the database refused the row: the application's transaction fails with it
     */
    public void send(Connection connection, OutgoingMessage message) throws SQLException {
        sendAll(connection, List.of(message));
    }

    /** Writes each of {@code messages} as {@link #send} does, in one batch of inserts. */
    public void sendAll(Connection connection, List<OutgoingMessage> messages) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("the outbox writes on the application's connection; it was null");
        }
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        Instant now = Instant.now();
        List<OutboxRow> rows = new ArrayList<>(messages.size());
        for (OutgoingMessage message : messages) {
            rows.add(row(message, now));
        }
        OutboxRows.insert(connection, rows);
    }

    private OutboxRow row(OutgoingMessage message, Instant now) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        // checked and encoded as a send is, by the client's own codec: what would be refused before Redis fails here
        PreparedMessage prepared = client.prepare(message);
        Long notBefore = message.notBeforeTime().map(Instant::toEpochMilli)
                .orElseGet(() -> message.delay().map(delay -> now.plus(delay).toEpochMilli()).orElse(null));
        return new OutboxRow(0, prepared.topic(), message.type(), prepared.key(), message.slotBasis(), message.value(),
                prepared.headers(), prepared.payload(), message.ttl() == null ? null : message.ttl().toMillis(),
                notBefore, message.repeatedKey(), now, 0);
    }

    /** Starts the relay on a thread of its own; a second call does nothing. It may be started again after a stop. */
    public synchronized void start() {
        if (relayThread == null) {
            relay.resume();
            relayThread = new Thread(relay, "rmq-outbox-relay");
            relayThread.setDaemon(true);
            relayThread.start();
        }
    }

    /** Whether the relay runs. */
    public synchronized boolean relaying() {
        return relayThread != null && relayThread.isAlive();
    }

    /** What the table holds, as the relay last counted it, and what the relay did. */
    public OutboxStats stats() {
        return relay.stats();
    }

    /**
     * The sends Redis refused that wait for another try, oldest first, at most {@code limit} (1 to 1,000): what an
     * operator looks at when {@code refused} is not zero.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    public List<RefusedSend> refused(int limit) {
        if (limit < 1 || limit > 1_000) {
            throw new IllegalArgumentException("limit must be in 1..1000, was " + limit);
        }
        try (Connection connection = dataSource.getConnection()) {
            return OutboxRows.refused(connection, limit);
        } catch (SQLException e) {
            throw new IllegalStateException("the outbox could not read its refused sends: " + e, e);
        }
    }

    /** Stops the relay, as {@link #stop()} does. */
    @Override
    public void close() {
        stop();
    }

    /**
     * Stops the relay, letting the batch it is sending finish (at most the close timeout); what is not relayed yet
     * stays in the table for the next start, here or on another instance.
     */
    public synchronized void stop() {
        relay.stop();
        Thread thread = relayThread;
        relayThread = null;
        if (thread == null) {
            return;
        }
        try {
            thread.join(closeTimeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("the outbox relay did not stop within {}; what it holds stays in the outbox", closeTimeout);
            thread.interrupt();
        }
    }

    /** Checks the outbox's settings; {@link #build()} migrates the schema. */
    public static final class Builder {

        private final DataSource dataSource;
        private final RmqClient client;
        private int batchSize = 100;
        private Duration pollInterval = Duration.ofMillis(100);
        private Duration closeTimeout = Duration.ofSeconds(10);
        private Duration claimTimeout = Duration.ofMinutes(1);
        private boolean migrate = true;
        private OutboxListener listener = OutboxListener.NONE;

        private Builder(DataSource dataSource, RmqClient client) {
            if (dataSource == null || client == null) {
                throw new IllegalArgumentException("the outbox needs the application's DataSource and an RmqClient");
            }
            this.dataSource = dataSource;
            this.client = client;
        }

        /** The most rows one relay transaction sends; 100 by default. */
        public Builder batchSize(int value) {
            if (value < 1 || value > 10_000) {
                throw new IllegalArgumentException("batchSize must be in 1..10000, was " + value);
            }
            this.batchSize = value;
            return this;
        }

        /** How long the relay waits when the table has nothing for it; 100 ms by default. */
        public Builder pollInterval(Duration value) {
            if (value == null || value.toMillis() < 1 || value.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("pollInterval must be between 1 ms and 1 minute, was " + value);
            }
            this.pollInterval = value;
            return this;
        }

        /**
         * How long a relay's claim on the batch it sends lasts; a minute by default. A relay that died with a batch
         * claimed leaves it to the others once the claim runs out: they send it again, and it merges into the
         * messages of its keys while those wait. Far longer than a batch takes to send, at least 1 s.
         */
        public Builder claimTimeout(Duration value) {
            if (value == null || value.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("claimTimeout must be at least 1 s, was " + value);
            }
            this.claimTimeout = value;
            return this;
        }

        /** How long {@link #close()} waits for the batch being sent; 10 s by default. */
        public Builder closeTimeout(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("closeTimeout must be zero or positive, was " + value);
            }
            this.closeTimeout = value;
            return this;
        }

        /** Whether {@link #build()} creates and migrates the table with Flyway; true by default. */
        public Builder migrate(boolean value) {
            this.migrate = value;
            return this;
        }

        /** Hears what the relay does, for metrics. */
        public Builder listener(OutboxListener value) {
            if (value == null) {
                throw new IllegalArgumentException("listener must not be null; leave it unset for none");
            }
            this.listener = value;
            return this;
        }

        public JdbcOutbox build() {
            if (migrate) {
                Flyway.configure().dataSource(dataSource).locations(migrations(dataSource)).table(HISTORY_TABLE)
                        .baselineOnMigrate(true).baselineVersion("0").load().migrate();
            }
            return new JdbcOutbox(this);
        }

        private static String migrations(DataSource dataSource) {
            try (Connection connection = dataSource.getConnection()) {
                String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
                if (product.contains("postgres")) {
                    return "classpath:dev/rmq/outbox/jdbc/migration/postgresql";
                }
                if (product.contains("mysql") || product.contains("mariadb")) {
                    return "classpath:dev/rmq/outbox/jdbc/migration/mysql";
                }
                throw new IllegalArgumentException("the outbox supports PostgreSQL and MySQL/MariaDB; the DataSource"
                        + " leads to " + connection.getMetaData().getDatabaseProductName());
            } catch (SQLException e) {
                throw new IllegalStateException("the outbox could not read which database it is on: " + e, e);
            }
        }
    }
}
