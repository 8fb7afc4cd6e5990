package dev.rmq.outbox.jdbc;

import dev.rmq.topic.RepeatedKey;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.function.Consumer;
import java.util.Map;
import java.util.TimeZone;

/**
 * The outbox table's SQL, the same on PostgreSQL and MySQL/MariaDB: rows written on the application's connection,
 * and the relay's batches, claimed in a short transaction of their own (locked with {@code FOR UPDATE SKIP LOCKED},
 * then marked with a claim deadline), so that relays of two instances never take the same row, and a relay whose
 * later transaction fails (a deadlock, a lost connection) finishes its rows instead of another relay sending them
 * again.
 */
final class OutboxRows {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };
    private static final String COLUMNS = "id, topic, type, msg_key, slot_basis, type_value, headers, payload,"
            + " ttl_ms, not_before, repeated_key, repeated_ms, created_at, attempts";

    private OutboxRows() {
    }

    /** Times are written and read in UTC, whatever the JVM's or the session's zone. */
    static Calendar utc() {
        return Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    }

    static void insert(Connection connection, List<OutboxRow> rows) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO rmq_outbox (topic, type, msg_key,"
                + " slot_basis, type_value, headers, payload, ttl_ms, not_before, repeated_key, repeated_ms,"
                + " created_at, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)")) {
            for (OutboxRow row : rows) {
                insert.setString(1, row.topic());
                insert.setString(2, row.type().scriptCode());
                insert.setString(3, row.key());
                insert.setString(4, row.slotBasis());
                insert.setLong(5, row.value());
                insert.setString(6, JSON.writeValueAsString(row.headers()));
                insert.setBytes(7, row.payload());
                setLong(insert, 8, row.ttlMs());
                setLong(insert, 9, row.notBefore());
                insert.setString(10, row.repeatedKey() == null ? null : row.repeatedKey().kind().name());
                setLong(insert, 11, row.repeatedKey() == null ? null : row.repeatedKey().window().toMillis());
                insert.setTimestamp(12, Timestamp.from(row.createdAt()), utc());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** A row this version cannot read (written by a newer one, or by hand): its id and why. */
    record Unreadable(long id, String error) {
    }

    /**
     * Claims up to {@code limit} rows due for relaying, oldest first, until {@code claimUntil}: rows another relay
     * has locked or claimed are skipped. A row that cannot be read is kept as Redis's refusals are, with why, for
     * another try at {@code unreadableRetryAt} (a newer version's relay may read it), and given to
     * {@code unreadable}: failing the batch instead would stop the outbox, as the row comes first in every batch.
     * Commits.
     */
    static List<OutboxRow> claim(Connection connection, int limit, Instant now, Instant claimUntil,
                                 Instant unreadableRetryAt, Consumer<Unreadable> unreadable) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        List<Unreadable> unread = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT " + COLUMNS + " FROM rmq_outbox"
                + " WHERE (retry_at IS NULL OR retry_at <= ?) AND (claimed_until IS NULL OR claimed_until < ?)"
                + " ORDER BY id LIMIT " + limit + " FOR UPDATE SKIP LOCKED")) {
            select.setTimestamp(1, Timestamp.from(now), utc());
            select.setTimestamp(2, Timestamp.from(now), utc());
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    try {
                        rows.add(row(result));
                    } catch (RuntimeException e) {
                        unread.add(new Unreadable(result.getLong("id"), "this version cannot read the row: " + e));
                    }
                }
            }
        }
        for (Unreadable row : unread) {
            refused(connection, row.id(), row.error(), unreadableRetryAt);
        }
        if (!rows.isEmpty()) {
            try (PreparedStatement update = connection.prepareStatement("UPDATE rmq_outbox SET claimed_until = ?"
                    + " WHERE id IN (" + "?,".repeat(rows.size() - 1) + "?)")) {
                update.setTimestamp(1, Timestamp.from(claimUntil), utc());
                for (int i = 0; i < rows.size(); i++) {
                    update.setLong(i + 2, rows.get(i).id());
                }
                update.executeUpdate();
            }
        }
        connection.commit();
        unread.forEach(unreadable);
        return rows;
    }

    private static OutboxRow row(ResultSet result) throws SQLException {
        String repeated = result.getString("repeated_key");
        return new OutboxRow(result.getLong("id"), result.getString("topic"),
                OutboxRow.type(result.getString("type")), result.getString("msg_key"),
                result.getString("slot_basis"), result.getLong("type_value"),
                JSON.readValue(result.getString("headers"), HEADERS), result.getBytes("payload"),
                nullableLong(result, "ttl_ms"), nullableLong(result, "not_before"),
                repeated == null ? null : RepeatedKey.of(RepeatedKey.Kind.valueOf(repeated),
                        Duration.ofMillis(result.getLong("repeated_ms"))),
                result.getTimestamp("created_at", utc()).toInstant(), result.getInt("attempts"));
    }

    /** Gives up the claim on rows whose send had no answer, for the next batch, of this relay or another. */
    static void release(Connection connection, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE rmq_outbox SET claimed_until = NULL"
                + " WHERE id IN (" + "?,".repeat(ids.size() - 1) + "?)")) {
            for (int i = 0; i < ids.size(); i++) {
                update.setLong(i + 1, ids.get(i));
            }
            update.executeUpdate();
        }
    }

    /** Deletes the rows Redis has taken. */
    static void delete(Connection connection, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM rmq_outbox WHERE id IN ("
                + "?,".repeat(ids.size() - 1) + "?)")) {
            for (int i = 0; i < ids.size(); i++) {
                delete.setLong(i + 1, ids.get(i));
            }
            delete.executeUpdate();
        }
    }

    /** Keeps a row Redis refused, with why, for another try at {@code retryAt}. */
    static void refused(Connection connection, long id, String error, Instant retryAt) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE rmq_outbox SET attempts = attempts + 1,"
                + " last_error = ?, retry_at = ?, claimed_until = NULL WHERE id = ?")) {
            update.setString(1, error.length() > 1024 ? error.substring(0, 1024) : error);
            update.setTimestamp(2, Timestamp.from(retryAt), utc());
            update.setLong(3, id);
            update.executeUpdate();
        }
    }

    /** Up to {@code limit} of the rows Redis refused, oldest first. */
    static List<RefusedSend> refused(Connection connection, int limit) throws SQLException {
        List<RefusedSend> refused = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT id, topic, msg_key, attempts, last_error,"
                + " created_at, retry_at FROM rmq_outbox WHERE attempts > 0 ORDER BY id LIMIT " + limit);
             ResultSet result = select.executeQuery()) {
            while (result.next()) {
                Timestamp retryAt = result.getTimestamp("retry_at", utc());
                refused.add(new RefusedSend(result.getLong("id"), result.getString("topic"),
                        result.getString("msg_key"), result.getInt("attempts"),
                        String.valueOf(result.getString("last_error")),
                        result.getTimestamp("created_at", utc()).toInstant(),
                        retryAt == null ? Instant.EPOCH : retryAt.toInstant()));
            }
        }
        return refused;
    }

    /** How many rows wait, how many of them Redis refused before, and when the oldest was written (null: none). */
    record Backlog(long rows, long refused, @Nullable Instant oldest) {
    }

    static Backlog backlog(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT count(*), coalesce(sum(CASE WHEN"
                + " attempts > 0 THEN 1 ELSE 0 END), 0), min(created_at) FROM rmq_outbox");
             ResultSet result = select.executeQuery()) {
            result.next();
            Timestamp oldest = result.getTimestamp(3, utc());
            return new Backlog(result.getLong(1), result.getLong(2), oldest == null ? null : oldest.toInstant());
        }
    }

    private static void setLong(PreparedStatement statement, int index, @Nullable Long value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value);
        }
    }

    private static @Nullable Long nullableLong(ResultSet result, String column) throws SQLException {
        long value = result.getLong(column);
        return result.wasNull() ? null : value;
    }
}
