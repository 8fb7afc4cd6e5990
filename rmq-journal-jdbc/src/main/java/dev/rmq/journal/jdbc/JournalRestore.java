package dev.rmq.journal.jdbc;

import dev.rmq.journal.RestoredMessage;
import dev.rmq.journal.RmqRestorer;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts back what Redis lost: every open message of the journal (last state not finished), the newest of each key,
 * page by page in id order. Redis's restore script leaves a key it still holds alone, so running this twice, or
 * while nothing was lost, changes nothing. When a key is put back, its older open messages (one in flight when Redis
 * lost it, with a newer send waiting behind it) are marked merged into it: Redis holds nothing of them any more.
 */
final class JournalRestore {

    private static final int PAGE = 1_000;
    private static final String WORKER = "restore";

    private static final Logger log = LoggerFactory.getLogger(JournalRestore.class);

    private final DataSource dataSource;
    private final Dialect dialect;
    private final String host;

    JournalRestore(DataSource dataSource, Dialect dialect, String host) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.host = host;
    }

    /** An open message as the journal holds it. */
    /** An open message as the journal holds it; {@code retriedAt}, when its last failure was (epoch ms), or 0. */
    private record Open(long id, String topic, String key, int slot, TopicType type, long score, long notBefore,
                        long expireAt, Map<String, String> headers, byte[] payload, JournalState state, int attempts,
                        String lastError, long retriedAt) {
    }

    RestoreReport restore(RestoreRequest request, RmqRestorer restorer, TopicRegistry topics) throws SQLException {
        long started = System.nanoTime();
        analyze();
        long examined = 0, restored = 0, present = 0, expired = 0, skipped = 0;
        long afterId = 0;
        Set<String> restoredKeys = new HashSet<>();
        while (true) {
            List<Open> page = page(request, afterId);
            if (page.isEmpty()) {
                break;
            }
            afterId = page.get(page.size() - 1).id();
            examined += page.size();
            long now = System.currentTimeMillis();
            Map<String, List<Open>> byTopic = new LinkedHashMap<>();
            List<Open> ranOut = new ArrayList<>();
            for (Open open : page) {
                TopicDefinition topic = topics.contains(open.topic()) ? topics.require(open.topic()) : null;
                if (topic == null || topic.type() != open.type() || open.slot() >= topic.slotAmount()) {
                    skipped++;
                } else {
                    byTopic.computeIfAbsent(open.topic(), name -> new ArrayList<>()).add(open);
                }
            }
            List<Open> putBack = new ArrayList<>();
            for (Map.Entry<String, List<Open>> entry : byTopic.entrySet()) {
                List<RestoredMessage> messages = new ArrayList<>(entry.getValue().size());
                TopicDefinition topic = topics.require(entry.getKey());
                for (Open open : entry.getValue()) {
                    messages.add(restored(open, now, request.expired(), topic));
                }
                List<RmqRestorer.Outcome> outcomes = request.dryRun() ? restorer.check(entry.getKey(), messages)
                        : restorer.restore(entry.getKey(), messages);
                // whether a time to live ran out is the Redis clock's call, as it is for what Redis kept
                for (int i = 0; i < outcomes.size(); i++) {
                    switch (outcomes.get(i)) {
                        case RESTORED -> putBack.add(entry.getValue().get(i));
                        case PRESENT -> present++;
                        case EXPIRED -> ranOut.add(entry.getValue().get(i));
                    }
                }
            }
            restored += putBack.size();
            expired += ranOut.size();
            if (request.dryRun()) {
                continue;
            }
            record(putBack, ranOut, topics);
            putBack.forEach(open -> restoredKeys.add(open.topic() + '\n' + open.key()));
        }
        if (!request.dryRun()) {
            closeSuperseded(request, restoredKeys);
        }
        return new RestoreReport(examined, restored, present, expired, skipped,
                Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * Refreshes the database's statistics of the messages before the restore reads them. A restore comes after a
     * loss, often after a burst of sends or a backlog that the statistics, refreshed every tenth of the table's rows
     * by default, do not know of yet: planned from statistics that say hardly any message is open, each page's query
     * read every open message for each one it returned, and a restore of 20,000 messages took 50 s instead of 1 s.
     * A restore goes on without it where the journal's user may not analyze the table.
     */
    private void analyze() {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute(dialect.analyzeMessages());
        } catch (SQLException e) {
            log.warn("restore could not refresh the statistics of rmq_messages ({}); it goes on, and its queries may be"
                    + " planned from stale ones, which can make it slow", e.getMessage());
        }
    }

    /**
     * The message as Redis is to hold it: due now if its time passed; its time to live dropped if it ran out; a
     * retry due once the backoff after its last failure is over.
     */
    private static RestoredMessage restored(Open open, long now, boolean expiredToo, TopicDefinition topic) {
        long retryDue = retryDue(open, topic);
        long score = open.type() == TopicType.PRIORITY ? open.score() : Math.max(Math.max(open.score(), retryDue), now);
        // a priority message waits out its backoff as Redis kept it, behind a not-before time
        long notBefore = open.type() == TopicType.PRIORITY && retryDue > Math.max(now, open.notBefore()) ? retryDue
                : open.notBefore();
        long expireAt = expiredToo && open.expireAt() > 0 && open.expireAt() <= now ? 0 : open.expireAt();
        // a released delivery was handed back unstarted: its attempt is not counted
        int attempts = open.state() == JournalState.RELEASED ? Math.max(0, open.attempts() - 1) : open.attempts();
        return new RestoredMessage(open.key(), open.slot(), score, notBefore, expireAt, attempts, open.headers(),
                open.payload(), open.lastError());
    }

    /**
     * When a message whose last state is a failure is due again, by its topic's backoff counted from the failure:
     * at the shortest the jitter allows, so never later than Redis had it. 0 for any other message. The journal
     * does not tell a retry from a retry at once ({@code retryNow}), which Redis takes again within milliseconds;
     * one lost in that moment waits the backoff.
     */
    private static long retryDue(Open open, TopicDefinition topic) {
        if (open.state() != JournalState.RETRIED || open.retriedAt() <= 0) {
            return 0;
        }
        BackoffPolicy backoff = topic.backoff();
        long delayMs = (long) (backoff.delayAfter(Math.max(1, open.attempts())).toMillis() * (1 - backoff.jitter()));
        return open.retriedAt() + delayMs;
    }

    private static long millisOf(@Nullable Timestamp time) {
        return time == null ? 0 : time.toInstant().toEpochMilli();
    }

    private List<Open> page(RestoreRequest request, long afterId) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT m.id, m.topic, m.msg_key, m.slot, m.type, m.score, m.not_before,"
                + " m.expire_at, m.headers, m.payload, m.state, m.attempts,"
                // the reason of its last failure, which its next delivery shows as it would have had Redis kept it
                + " (SELECT t.detail FROM rmq_transitions t WHERE t.message_id = m.id AND t.state = '"
                + JournalState.RETRIED.column() + "' ORDER BY t.id DESC LIMIT 1),"
                // when it failed last, for a message waiting out its backoff
                + " CASE WHEN m.state = '" + JournalState.RETRIED.column() + "' THEN (SELECT t.at FROM rmq_transitions t"
                + " WHERE t.message_id = m.id AND t.state = '" + JournalState.RETRIED.column()
                + "' ORDER BY t.id DESC LIMIT 1) END FROM rmq_messages m"
                + " WHERE m.finished = FALSE AND m.id > ?");
        if (request.topic() != null) {
            sql.append(" AND m.topic = ?");
        }
        if (request.key() != null) {
            sql.append(" AND m.msg_key = ?");
        }
        // the newest open message of each key only: an older one is the delivery Redis had in flight. The newer one
        // is looked for by the key index (see OpenMessages.lookupSql for why not by the index of open messages)
        sql.append(" AND NOT EXISTS (SELECT 1 FROM rmq_messages n WHERE n.topic = m.topic AND n.msg_key = m.msg_key"
                + " AND n.finished IS NOT TRUE AND n.id > m.id) ORDER BY m.id LIMIT ").append(PAGE);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(sql.toString())) {
            int index = 1;
            select.setLong(index++, afterId);
            if (request.topic() != null) {
                select.setString(index++, request.topic());
            }
            if (request.key() != null) {
                select.setString(index, request.key());
            }
            List<Open> page = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    page.add(new Open(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getInt(4),
                            Columns.typeOf(rows.getString(5)), rows.getLong(6), rows.getLong(7), rows.getLong(8),
                            Columns.headers(rows.getString(9)), rows.getBytes(10),
                            JournalState.fromColumn(rows.getString(11)), rows.getInt(12), rows.getString(13),
                            millisOf(rows.getTimestamp(14, Transactions.utc()))));
                }
            }
            return page;
        }
    }

    /**
     * Marks what was put back restored (without its time to live when that had run out and the request said to put
     * it back all the same), and what ran out expired, saying where the topic's expiry action sent it.
     */
    private void record(List<Open> putBack, List<Open> ranOut, TopicRegistry topics) throws SQLException {
        if (putBack.isEmpty() && ranOut.isEmpty()) {
            return;
        }
        Timestamp at = Timestamp.from(Instant.now());
        long now = System.currentTimeMillis();
        // rows are locked in id order, as every journal's writer locks them, so that two never wait on each other
        putBack.sort(java.util.Comparator.comparingLong(Open::id));
        ranOut.sort(java.util.Comparator.comparingLong(Open::id));
        List<Long> ids = new ArrayList<>();
        putBack.forEach(open -> ids.add(open.id()));
        ranOut.forEach(open -> ids.add(open.id()));
        RestoreMarks.write(dataSource, ids, (transition, update, stillOpen) -> {
            for (Open open : putBack) {
                if (!stillOpen.contains(open.id())) {
                    continue;
                }
                long expireAt = open.expireAt() > 0 && open.expireAt() <= now ? 0 : open.expireAt();
                add(transition, update, open.id(), open.attempts(), JournalState.RESTORED, false, expireAt, at,
                        expireAt == open.expireAt() ? "put back into Redis"
                                : "put back into Redis without its time to live, which had run out");
            }
            for (Open open : ranOut) {
                if (!stillOpen.contains(open.id())) {
                    continue;
                }
                boolean toDead = topics.require(open.topic()).expiry() == ExpiryAction.DEAD;
                add(transition, update, open.id(), open.attempts(), JournalState.EXPIRED, true, open.expireAt(), at,
                        "its time to live ran out before a restore" + (toDead ? "; moved to the dead queue" : "; dropped"));
            }
        });
    }

    /**
     * Marks the older open messages of each key put back merged into it: they were in flight when Redis lost them,
     * with a newer send waiting behind, and Redis now holds only the newer one.
     */
    private void closeSuperseded(RestoreRequest request, Set<String> restoredKeys) throws SQLException {
        if (restoredKeys.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder("SELECT m.id, m.topic, m.msg_key, m.attempts, m.expire_at FROM"
                + " rmq_messages m WHERE m.finished = FALSE AND EXISTS (SELECT 1 FROM rmq_messages n WHERE"
                + " n.topic = m.topic AND n.msg_key = m.msg_key AND n.finished IS NOT TRUE AND n.id > m.id)");
        if (request.topic() != null) {
            sql.append(" AND m.topic = ?");
        }
        List<long[]> superseded = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(sql.toString())) {
            if (request.topic() != null) {
                select.setString(1, request.topic());
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    if (restoredKeys.contains(rows.getString(2) + '\n' + rows.getString(3))) {
                        superseded.add(new long[] {rows.getLong(1), rows.getInt(4), rows.getLong(5)});
                    }
                }
            }
        }
        if (superseded.isEmpty()) {
            return;
        }
        Timestamp at = Timestamp.from(Instant.now());
        superseded.sort(java.util.Comparator.comparingLong(old -> old[0]));
        List<Long> ids = new ArrayList<>();
        superseded.forEach(old -> ids.add(old[0]));
        RestoreMarks.write(dataSource, ids, (transition, update, stillOpen) -> {
            for (long[] old : superseded) {
                if (!stillOpen.contains(old[0])) {
                    continue;
                }
                add(transition, update, old[0], (int) old[1], JournalState.MERGED, true, old[2], at,
                        "a newer send of its key was put back by a restore in its place");
            }
        });
    }

    private void add(PreparedStatement transition, PreparedStatement update, long id, int attempts,
                     JournalState state, boolean finished, long expireAt, Timestamp at, String detail)
            throws SQLException {
        transition.setLong(1, id);
        transition.setString(2, state.column());
        transition.setInt(3, attempts);
        transition.setTimestamp(4, at, Transactions.utc());
        transition.setString(5, WORKER);
        transition.setString(6, host);
        transition.setString(7, detail);
        transition.addBatch();
        update.setString(1, state.column());
        update.setBoolean(2, finished);
        if (expireAt > 0) {
            update.setLong(3, expireAt);
        } else {
            update.setNull(3, Types.BIGINT);
        }
        update.setTimestamp(4, at, Transactions.utc());
        update.setLong(5, id);
        update.addBatch();
    }
}
