package dev.rmq.faults;

import org.postgresql.ds.PGSimpleDataSource;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The journal's rows, without payloads, written beside a failed run's logs: what the journal held of each message
 * when the run ended is what explains a restore's duplicate or loss, and the database goes with the run.
 */
final class JournalDump {

    private static final String MESSAGES = "SELECT id, topic, msg_key, slot, type, score, not_before, expire_at, state,"
            + " attempts, finished, created_at, updated_at FROM rmq_messages ORDER BY id";
    private static final String TRANSITIONS = "SELECT id, message_id, state, attempt, at, worker, detail"
            + " FROM rmq_transitions ORDER BY id";

    private JournalDump() {
    }

    /** Writes {@code journal-messages.tsv} and {@code journal-transitions.tsv} into {@code dir}. */
    static void write(String jdbcUrl, Path dir) throws SQLException, IOException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl);
        try (Connection connection = dataSource.getConnection()) {
            // stream the rows rather than hold a long run's hundreds of thousands in memory
            connection.setAutoCommit(false);
            dump(connection, MESSAGES, dir.resolve("journal-messages.tsv"));
            dump(connection, TRANSITIONS, dir.resolve("journal-transitions.tsv"));
        }
    }

    private static void dump(Connection connection, String query, Path file) throws SQLException, IOException {
        try (Statement statement = connection.createStatement();
             BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            statement.setFetchSize(5_000);
            try (ResultSet rows = statement.executeQuery(query)) {
                ResultSetMetaData columns = rows.getMetaData();
                for (int i = 1; i <= columns.getColumnCount(); i++) {
                    out.write((i > 1 ? "\t" : "") + columns.getColumnName(i));
                }
                out.newLine();
                while (rows.next()) {
                    for (int i = 1; i <= columns.getColumnCount(); i++) {
                        String value = rows.getString(i);
                        out.write((i > 1 ? "\t" : "") + (value == null ? "" : value.replace('\t', ' ').replace('\n', ' ')));
                    }
                    out.newLine();
                }
            }
        }
    }
}
