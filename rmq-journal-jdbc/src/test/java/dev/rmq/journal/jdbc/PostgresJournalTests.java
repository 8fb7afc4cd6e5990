package dev.rmq.journal.jdbc;

import dev.rmq.producer.OutgoingMessage;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
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

    /** When rmq_messages was last analyzed by a command (not by autovacuum); null for never. */
    private Timestamp lastAnalyze() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(
                     "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'rmq_messages'")) {
            return row.next() ? row.getTimestamp(1) : null;
        }
    }
}
