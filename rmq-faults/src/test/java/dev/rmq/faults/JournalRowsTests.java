package dev.rmq.faults;

import dev.rmq.faults.check.JournalRecord.Transition;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.testsupport.db.PostgresTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Calendar;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the checker reads of a run's journal, from a real PostgreSQL with the journal's own schema: a key's rows in
 * the order they were written, with their times as written, and the first restore mark from a message on.
 */
class JournalRowsTests {

    private static final long T0 = 1_800_000_000_000_000L;
    private static final long S = 1_000_000;
    private static final Calendar UTC = Calendar.getInstance(TimeZone.getTimeZone("UTC"));

    private static PostgresTestServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresTestServer.start();
        // the journal creates its tables as it starts
        HarnessJournal.open(postgres.jdbcUrl(), JournalMode.OFF).close();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Test
    void aKeysRowsComeInTheOrderWrittenAndTheFirstRestoreMarkIsFoundFromAMessageOn() throws SQLException {
        long first, second, other, delivered, restored, otherRestored, acked;
        try (Connection c = connection()) {
            first = message(c, "topic", "k");
            second = message(c, "topic", "k");
            other = message(c, "topic", "other");
            delivered = transition(c, first, "delivered", T0 + 10 * S);
            restored = transition(c, first, "restored", T0 + 61 * S);
            otherRestored = transition(c, other, "restored", T0 + 61 * S + 500_000);
            // a row written late, of a change made long before
            acked = transition(c, second, "acked", T0 + 30 * S);
        }

        try (JournalRows rows = new JournalRows(postgres.jdbcUrl())) {
            assertThat(rows.of("topic", "k")).containsExactly(
                    new Transition(delivered, first, "delivered", T0 + 10 * S),
                    new Transition(restored, first, "restored", T0 + 61 * S),
                    new Transition(acked, second, "acked", T0 + 30 * S));
            assertThat(rows.of("topic", "none")).isEmpty();

            long from = T0 + 60 * S;
            long to = T0 + 62 * S;
            assertThat(rows.firstRestoredFrom(first, from, to)).isEqualTo(restored);
            assertThat(rows.firstRestoredFrom(second, from, to)).as("the mark of a later message").isEqualTo(otherRestored);
            assertThat(rows.firstRestoredFrom(other + 1, from, to)).isEqualTo(Long.MAX_VALUE);
            assertThat(rows.firstRestoredFrom(first, T0 + 61 * S + 1, to)).as("only marks made within the window")
                    .isEqualTo(otherRestored);
            assertThat(rows.firstRestoredFrom(first, T0, T0 + 20 * S)).isEqualTo(Long.MAX_VALUE);
        }
    }

    private static Connection connection() throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        return dataSource.getConnection();
    }

    private static long message(Connection c, String topic, String key) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO rmq_messages (topic, msg_key, slot, type, score,"
                + " headers, payload, created_at, state, updated_at) VALUES (?, ?, 0, 'P', 50, '{}', ?, ?, 'sent', ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            insert.setString(1, topic);
            insert.setString(2, key);
            insert.setBytes(3, new byte[0]);
            insert.setTimestamp(4, timestamp(T0), (Calendar) UTC.clone());
            insert.setTimestamp(5, timestamp(T0), (Calendar) UTC.clone());
            return idOf(insert);
        }
    }

    /** A transition as the journal writes one: its time in UTC, whatever this JVM's zone. */
    private static long transition(Connection c, long message, String state, long atMicros) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO rmq_transitions (message_id, state, attempt, at)"
                + " VALUES (?, ?, 0, ?)", Statement.RETURN_GENERATED_KEYS)) {
            insert.setLong(1, message);
            insert.setString(2, state);
            insert.setTimestamp(3, timestamp(atMicros), (Calendar) UTC.clone());
            return idOf(insert);
        }
    }

    private static long idOf(PreparedStatement insert) throws SQLException {
        insert.executeUpdate();
        try (ResultSet keys = insert.getGeneratedKeys()) {
            keys.next();
            return keys.getLong("id");
        }
    }

    private static Timestamp timestamp(long micros) {
        return Timestamp.from(Instant.ofEpochSecond(micros / S, micros % S * 1000));
    }
}
