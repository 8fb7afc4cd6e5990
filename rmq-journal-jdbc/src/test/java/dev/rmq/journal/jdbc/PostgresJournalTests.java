package dev.rmq.journal.jdbc;

import dev.rmq.producer.OutgoingMessage;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The journal on a PostgreSQL server of its own (the base class starts it). */
class PostgresJournalTests extends JournalBehaviour {

    @Test
    void aRestoreRefreshesTheStatisticsItsQueriesArePlannedFrom() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "p", 70).withKey("k"));
        journal.flush(Duration.ofSeconds(10));
        Timestamp before = lastAnalyze();

        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isEqualTo(1);

        // the server's statistics views lag behind by up to half a second
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Timestamp after = lastAnalyze();
            return after != null && (before == null || after.after(before));
        });
    }

    @Test
    void autovacuumRefreshesTheCountOfOpenMessagesAfterTenThousandChangedRowsWhateverTheTablesSize()
            throws SQLException {
        open(journal -> { });
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(
                     "SELECT reloptions FROM pg_class WHERE relname = 'rmq_messages'")) {
            assertThat(row.next()).isTrue();
            assertThat((String[]) row.getArray(1).getArray()).containsExactlyInAnyOrder(
                    "autovacuum_analyze_scale_factor=0", "autovacuum_analyze_threshold=10000");
        }
    }

    @Test
    void aWritersLookupReadsTheKeysRowsEvenWhenTheStatisticsBelieveNoMessageOpen() throws SQLException {
        open(journal -> { });
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            // statistics from a journal whose messages were all finished, then a burst of sends they do not know of
            statement.executeUpdate(insertMessages("done", 2_000, true));
            statement.execute("ANALYZE rmq_messages");
            statement.executeUpdate(insertMessages("open", 20_000, false));

            String open = plan(connection, OpenMessages.lookupSql(1, true));
            assertThat(open).as("by the key index, not through every open message").contains("rmq_messages_key")
                    .doesNotContain("rmq_messages_unfinished");
            assertThat(plan(connection, OpenMessages.lookupSql(1, true).replace("IS NOT TRUE", "= FALSE")))
                    .as("what the plain predicate gets from the same statistics").contains("rmq_messages_unfinished");
        }
    }

    private static String insertMessages(String prefix, int count, boolean finished) {
        return "INSERT INTO rmq_messages (topic, msg_key, slot, type, score, headers, payload, created_at, state,"
                + " finished, updated_at) SELECT 'burst', '" + prefix + "-' || i, 0, 'P', 1, '{}', decode('01', 'hex'),"
                + " now(), 'sent', " + finished + ", now() FROM generate_series(1, " + count + ") i";
    }

    /** The plan PostgreSQL makes for a lookup of one key of topic 'burst'. */
    private static String plan(Connection connection, String lookup) throws SQLException {
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + lookup)) {
            explain.setString(1, "burst");
            explain.setString(2, "open-77");
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    /** When rmq_messages was last analyzed by a command (not by autovacuum); null for never. */
    private Timestamp lastAnalyze() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(
                     "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'rmq_messages'")) {
            return row.next() ? row.getTimestamp(1) : null;
        }
    }
}
