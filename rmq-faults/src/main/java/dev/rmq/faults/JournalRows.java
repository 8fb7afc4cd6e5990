package dev.rmq.faults;

import dev.rmq.faults.check.JournalRecord;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.TimeZone;

/**
 * The journal's rows of a key, read from the run's PostgreSQL once the consumers are gone, so that every row a
 * living consumer's writer still held has been written. One connection serves the whole check.
 */
final class JournalRows implements JournalRecord, AutoCloseable {

    private static final String OF_KEY = "SELECT t.id, t.message_id, t.state, t.at FROM rmq_transitions t"
            + " JOIN rmq_messages m ON m.id = t.message_id WHERE m.topic = ? AND m.msg_key = ? ORDER BY t.id";

    private static final String FIRST_RESTORED = "SELECT MIN(id) FROM rmq_transitions WHERE state = 'restored'"
            + " AND message_id >= ? AND at >= ? AND at <= ?";
    private static final Calendar UTC = Calendar.getInstance(TimeZone.getTimeZone("UTC"));

    private final Connection connection;

    JournalRows(String jdbcUrl) throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl);
        this.connection = dataSource.getConnection();
    }

    @Override
    public List<Transition> of(String topic, String key) {
        try (PreparedStatement select = connection.prepareStatement(OF_KEY)) {
            select.setString(1, topic);
            select.setString(2, key);
            List<Transition> rows = new ArrayList<>();
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    // the journal writes its times in UTC, whatever the zone of the JVM that wrote them
                    Instant at = result.getTimestamp(4, (Calendar) UTC.clone()).toInstant();
                    rows.add(new Transition(result.getLong(1), result.getLong(2), result.getString(3),
                            ChronoUnit.MICROS.between(Instant.EPOCH, at)));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("the journal's rows of " + topic + " " + key + " could not be read: " + e, e);
        }
    }

    @Override
    public long firstRestoredFrom(long messageId, long fromMicros, long toMicros) {
        try (PreparedStatement select = connection.prepareStatement(FIRST_RESTORED)) {
            select.setLong(1, messageId);
            select.setTimestamp(2, timestamp(fromMicros), (Calendar) UTC.clone());
            select.setTimestamp(3, timestamp(toMicros), (Calendar) UTC.clone());
            try (ResultSet result = select.executeQuery()) {
                long id = result.next() ? result.getLong(1) : 0;
                return id == 0 ? Long.MAX_VALUE : id;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the journal's restored rows could not be read: " + e, e);
        }
    }

    private static Timestamp timestamp(long micros) {
        return Timestamp.from(Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
