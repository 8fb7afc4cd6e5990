package dev.rmq.journal.jdbc;

import dev.rmq.journal.MessageHistory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Reads a key's messages back, the latest first, each with its transitions, their times in UTC as the writer stores
 * them: two indexed queries, one on
 * {@code (topic, msg_key)} and one on the transitions' {@code message_id}. Messages stay readable until retention
 * removes them, a retention period after they finished.
 */
final class JournalHistory {

    private final DataSource dataSource;

    JournalHistory(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The state of a message before its transitions are read. */
    private record Found(long id, MessageHistory partial) {
    }

    List<MessageHistory> read(String topic, String key, int limit) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            List<Found> found = messages(connection, topic, key, limit);
            if (found.isEmpty()) {
                return List.of();
            }
            Map<Long, List<MessageHistory.Transition>> transitions = transitions(connection, found);
            List<MessageHistory> histories = new ArrayList<>(found.size());
            for (Found one : found) {
                MessageHistory m = one.partial();
                histories.add(new MessageHistory(m.topic(), m.key(), m.slot(), m.type(), m.score(), m.state(),
                        m.attempts(), m.finished(), m.sentAt(), m.updatedAt(), m.headers(), m.payload(),
                        transitions.getOrDefault(one.id(), List.of())));
            }
            return histories;
        }
    }

    private static List<Found> messages(Connection connection, String topic, String key, int limit)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT id, slot, type, score, state, attempts,"
                + " finished, created_at, updated_at, headers, payload FROM rmq_messages WHERE topic = ? AND"
                + " msg_key = ? ORDER BY id DESC LIMIT " + limit)) {
            select.setString(1, topic);
            select.setString(2, key);
            List<Found> found = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    found.add(new Found(rows.getLong(1), new MessageHistory(topic, key, rows.getInt(2),
                            Columns.typeOf(rows.getString(3)), rows.getLong(4), rows.getString(5), rows.getInt(6),
                            rows.getBoolean(7), rows.getTimestamp(8, Transactions.utc()).toInstant(),
                            rows.getTimestamp(9, Transactions.utc()).toInstant(),
                            Columns.headers(rows.getString(10)), rows.getBytes(11), List.of())));
                }
            }
            return found;
        }
    }

    private static Map<Long, List<MessageHistory.Transition>> transitions(Connection connection, List<Found> found)
            throws SQLException {
        StringJoiner ids = new StringJoiner(", ", "(", ")");
        for (int i = 0; i < found.size(); i++) {
            ids.add("?");
        }
        Map<Long, List<MessageHistory.Transition>> all = new LinkedHashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT message_id, state, attempt, at, worker,"
                + " host, detail FROM rmq_transitions WHERE message_id IN " + ids + " ORDER BY id")) {
            for (int i = 0; i < found.size(); i++) {
                select.setLong(i + 1, found.get(i).id());
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    all.computeIfAbsent(rows.getLong(1), id -> new ArrayList<>()).add(new MessageHistory.Transition(
                            rows.getString(2), rows.getInt(3), rows.getTimestamp(4, Transactions.utc()).toInstant(),
                            rows.getString(5), rows.getString(6), rows.getString(7)));
                }
            }
        }
        return all;
    }
}
