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

    /**
     * A message: its id, state, attempts, when it was sent, whether it is finished (never, when read as open), and
     * the send whose content it holds (null when that send had no id).
     */
    record Open(long id, String state, int attempts, Instant createdAt, boolean finished, @Nullable String sendId) {

        /** Whether a newer send of its key finished it, as Redis no longer held it then, or it waited behind it. */
        boolean superseded() {
            return finished && JournalState.MERGED.column().equals(state);
        }
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
        List<Open> rows = of(open, change);
        if (rows.isEmpty()) {
            return null;
        }
        Open oldest = rows.get(0);
        return oldest.createdAt().isAfter(change.time().plus(CLOCK_SKEW)) ? null : oldest;
    }

    /**
     * Takes off the front of the key's open messages those whose delivery had ended before the delivery
     * {@code change} records, and returns them, oldest first. Such a message is open, in the journal, only because
     * the rows of its delivery's end never came (its consumer was killed before its journal wrote them): the journal
     * holds it as delivered with as many attempts as this delivery has, or more, and a newer message of its key was
     * sent before this delivery began. A message's attempts only grow from one delivery to its next, so this delivery
     * is not of it but of a newer message; and a key's messages are delivered one at a time, so it had ended. A
     * release lowers the count again, but a release with a newer message of the key waiting ends the message, as it
     * merges into that one.
     */
    static List<Open> endedBefore(Map<String, List<Open>> open, Row.Change change) {
        List<Open> rows = of(open, change);
        if (change.state() != JournalState.DELIVERED || change.newest() || change.attempt() == null) {
            return List.of();
        }
        int ended = 0;
        while (ended + 1 < rows.size() && rows.get(ended).state().equals(JournalState.DELIVERED.column())
                && rows.get(ended).attempts() >= change.attempt()
                && !rows.get(ended + 1).createdAt().isAfter(change.time())) {
            ended++;
        }
        return takeFront(rows, ended);
    }

    /**
     * Whether a consumer's change happened before its key's open message that {@link #pickFor} chose was sent: then
     * the change may be about an older message that the newer send superseded before the consumer's journal wrote
     * the change, see {@link #supersededFor}. With no open message the change waits for one, as before: the row of
     * the send it is about may not have committed yet.
     */
    static boolean predates(@Nullable Open chosen, Row.Change change) {
        return !change.newest() && chosen != null && chosen.createdAt().isAfter(change.time());
    }

    /**
     * The superseded message a consumer's change is about, or null: the key's newest message sent before the change
     * happened, when a newer send superseded it. A send that Redis takes as a new message supersedes the key's older
     * messages that the journal does not know to be in flight: Redis no longer held them. When the consumer that
     * took one has not had its rows written yet, they arrive after the supersede, and belong to the older message,
     * not to the newer one, which did not exist yet when they happened (by the clocks, which is why only a change
     * that happened before the newer send began comes here). Placed on the newer message they would finish it
     * without a delivery, and a restore would leave it out.
     *
     * @param all every message of the change's key, from {@link #lookup(Connection, List, boolean)}
     */
    static @Nullable Open supersededFor(Map<String, List<Open>> all, Row.Change change) {
        Open before = null;
        for (Open row : of(all, change)) {
            if (!row.createdAt().isAfter(change.time())) {
                before = row;
            }
        }
        return before != null && before.superseded() ? before : null;
    }

    /**
     * The key's message in {@code messages} that holds the send the change names; null when none does (its send's
     * row has not committed yet, or never will), or the change names none.
     */
    static @Nullable Open holding(Map<String, List<Open>> messages, Row.Change change) {
        String sendId = change.sendId();
        if (sendId == null) {
            return null;
        }
        for (Open row : of(messages, change)) {
            if (sendId.equals(row.sendId())) {
                return row;
            }
        }
        return null;
    }

    /**
     * Takes off the front of the key's open messages those older than {@code delivered}, when the change is its
     * delivery, and returns them, oldest first: a key's messages are delivered one at a time, in the order Redis took
     * them, so theirs had ended, though the journal never had the rows of the end (their consumer was killed first).
     */
    static List<Open> olderThan(Map<String, List<Open>> open, Row.Change change, Open delivered) {
        List<Open> rows = of(open, change);
        int at = rows.indexOf(delivered);
        return change.state() == JournalState.DELIVERED ? takeFront(rows, at) : List.of();
    }

    /** Takes the first {@code count} of a key's messages off its list, and returns them, oldest first. */
    private static List<Open> takeFront(List<Open> rows, int count) {
        if (count <= 0) {
            return List.of();
        }
        List<Open> taken = new ArrayList<>(rows.subList(0, count));
        rows.subList(0, count).clear();
        return taken;
    }

    /** The messages of the change's key in {@code messages}, oldest first; empty when there are none. */
    private static List<Open> of(Map<String, List<Open>> messages, Row.Change change) {
        return messages.getOrDefault(change.topic() + '\n' + change.key(), List.of());
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

    /**
     * The lookup of {@code keys} keys of one topic. Open is {@code finished IS NOT TRUE}, which the partial index of
     * open messages ({@code WHERE NOT finished}, for a restore's pages) cannot answer: a planner that believes hardly
     * any message open (statistics from before a burst of sends) would otherwise read that whole index for each
     * lookup, every open message, rather than the few rows of the keys by the key index.
     */
    static String lookupSql(int keys, boolean openOnly) {
        return "SELECT id, msg_key, state, attempts, created_at, finished, send_id FROM rmq_messages WHERE "
                + (openOnly ? "finished IS NOT TRUE AND " : "") + "topic = ? AND msg_key IN ("
                + String.join(", ", Collections.nCopies(keys, "?")) + ")";
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
                try (PreparedStatement select = connection.prepareStatement(lookupSql(chunk.size(), openOnly))) {
                    select.setString(1, topic.getKey());
                    for (int i = 0; i < chunk.size(); i++) {
                        select.setString(i + 2, chunk.get(i));
                    }
                    try (ResultSet result = select.executeQuery()) {
                        while (result.next()) {
                            found.computeIfAbsent(topic.getKey() + '\n' + result.getString(2), k -> new ArrayList<>())
                                    .add(new Open(result.getLong(1), result.getString(3), result.getInt(4),
                                            result.getTimestamp(5, Transactions.utc()).toInstant(),
                                            result.getBoolean(6), result.getString(7)));
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
