package dev.rmq.journal.jdbc;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A key's open messages, as the writer finds them for the rows of a run: one lookup per topic and up to
 * {@value #LOOKUP_CHUNK} keys, then which message each row goes to.
 */
final class OpenMessages {

    /** Keys looked up in one statement at most, to stay within every driver's parameter limit. */
    static final int LOOKUP_CHUNK = 500;

    private OpenMessages() {
    }

    record TopicKey(String topic, String key) {
    }

    /** An open message: its id, state, attempts and when it was sent. */
    record Open(long id, String state, int attempts, Instant createdAt) {
    }

    /** How far the clocks of the processes that write one journal may disagree. */
    private static final Duration CLOCK_SKEW = Duration.ofSeconds(5);

    /**
     * The message a consumer's change goes to: the key's oldest open one sent before the change happened (give or
     * take the clocks' skew). A later one is a send of the key after the change's message, which the journal may
     * not have a row of (sent before it was on, or its row dropped): the change must not finish the later one.
     */
    static @Nullable Open pickFor(Map<String, List<Open>> open, Row.Change change) {
        if (change.newest()) {
            return pick(open, change.topic(), change.key(), true);
        }
        List<Open> rows = open.get(change.topic() + '\n' + change.key());
        if (rows == null || rows.isEmpty()) {
            return null;
        }
        Open oldest = rows.get(0);
        return oldest.createdAt().isAfter(change.time().plus(CLOCK_SKEW)) ? null : oldest;
    }

    /** A key's oldest or newest open message, or null. */
    static @Nullable Open pick(Map<String, List<Open>> open, String topic, String key, boolean newest) {
        List<Open> rows = open.get(topic + '\n' + key);
        if (rows == null || rows.isEmpty()) {
            return null;
        }
        return newest ? rows.get(rows.size() - 1) : rows.get(0);
    }

    /**
     * The open messages of each key, oldest first, by {@code topic + '\n' + key}. Consumers' changes go to the oldest
     * (the message in flight comes before one sent behind it); sends and producers' changes to the newest.
     */
    static Map<String, List<Open>> lookup(Connection connection, List<TopicKey> keys) throws SQLException {
        return lookup(connection, keys, true);
    }

    /** As {@link #lookup(Connection, List)}, of every message of the keys when {@code openOnly} is false. */
    static Map<String, List<Open>> lookup(Connection connection, List<TopicKey> keys, boolean openOnly)
            throws SQLException {
        Map<String, List<String>> byTopic = new LinkedHashMap<>();
        keys.forEach(k -> byTopic.computeIfAbsent(k.topic(), t -> new ArrayList<>()).add(k.key()));
        Map<String, List<Open>> found = new HashMap<>();
        for (Map.Entry<String, List<String>> topic : byTopic.entrySet()) {
            List<String> all = topic.getValue();
            for (int from = 0; from < all.size(); from += LOOKUP_CHUNK) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + LOOKUP_CHUNK));
                String sql = "SELECT id, msg_key, state, attempts, created_at FROM rmq_messages WHERE "
                        + (openOnly ? "finished = FALSE AND " : "") + "topic = ? AND msg_key IN (" + String.join(", ", Collections.nCopies(chunk.size(), "?"))
                        + ")";
                try (PreparedStatement select = connection.prepareStatement(sql)) {
                    select.setString(1, topic.getKey());
                    for (int i = 0; i < chunk.size(); i++) {
                        select.setString(i + 2, chunk.get(i));
                    }
                    try (ResultSet result = select.executeQuery()) {
                        while (result.next()) {
                            found.computeIfAbsent(topic.getKey() + '\n' + result.getString(2), k -> new ArrayList<>())
                                    .add(new Open(result.getLong(1), result.getString(3), result.getInt(4),
                                            result.getTimestamp(5, Transactions.utc()).toInstant()));
                        }
                    }
                }
            }
        }
        // sorted here, not by the query: an ORDER BY id lets the planner walk the id index past every open message
        found.values().forEach(rows -> rows.sort(Comparator.comparingLong(Open::id)));
        return found;
    }
}
