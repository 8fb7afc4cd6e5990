package dev.rmq.journal.jdbc;

import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.jdbc.ChangePlacement.Placed;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes rows in one transaction, in their order. Rows of one kind in a row go in JDBC batches, one statement kind
 * after another; a row of another kind, or a second row of a key already in the run, ends the run first, so that a
 * key's rows are applied in the order they happened. A change finds its message by one lookup per run of the keys'
 * open messages, then writes by id: plain INSERT ... VALUES and UPDATE ... WHERE id, which every driver batches.
 */
final class RowWriter {

    private static final String INSERT_MESSAGE = "INSERT INTO rmq_messages (topic, msg_key, slot, type, score,"
            + " not_before, expire_at, headers, payload, created_at, state, attempts, finished, updated_at, send_id)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, FALSE, ?, ?)";
    /** The worker of a transition that a send made: a sent or a merged message. */
    static final String PRODUCER = "producer";

    private static final String INSERT_TRANSITION = "INSERT INTO rmq_transitions (message_id, state, attempt, at,"
            + " worker, host, detail) VALUES (?, ?, ?, ?, ?, ?, ?)";
    /** A merge keeps a range-merge message's first due time, unless the send debounced it (parameter 1). */
    private static final String MERGE = "UPDATE rmq_messages"
            + " SET score = CASE WHEN type = 'R' AND NOT ? THEN score ELSE ? END, not_before = ?, expire_at = ?, headers = ?, payload = ?, send_id = ?, state = 'merged', updated_at = ? WHERE id = ?";
    /**
     * A change of a message that is still open: another process's writer may have finished it after this one read
     * it as open, and a finished message is never reopened (its row then counts no update, and the change is placed
     * again, on the key's message that is open now).
     */
    private static final String CHANGE = "UPDATE rmq_messages SET state = ?, attempts = ?, score = COALESCE(?, score),"
            + " not_before = CASE WHEN ? THEN not_before ELSE NULLIF(?, 0) END, finished = ?, updated_at = ? WHERE id = ?"
            + " AND finished = FALSE";
    private static final String SUPERSEDE = "UPDATE rmq_messages SET state = 'merged', finished = TRUE, updated_at = ?"
            + " WHERE id = ?";

    private final Dialect dialect;
    private final String host;

    RowWriter(Dialect dialect, String host) {
        this.dialect = dialect;
        this.host = host;
    }

    Dialect dialect() {
        return dialect;
    }

    /**
     * Writes the rows, in the caller's transaction ({@link Transactions#run}): on failure it throws, and the caller's
     * rollback leaves nothing of them, so that they can be written again.
     *
     * @return the changes whose message the journal does not hold (yet), in order, with every later change of their
     *         keys: a consumer can take a message before the producer's row of it has committed, so the caller tries
     *         them again for a while
     */
    List<Row.Change> write(Connection connection, List<Row> rows) throws SQLException {
        dialect.beginWrite(connection);
        List<Row.Change> unplaced = new ArrayList<>();
        Set<String> blocked = new HashSet<>();
        Set<String> finishing = new HashSet<>();
        Set<String> delivered = new HashSet<>();
        List<Row> run = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        Class<?> kind = null;
        for (Row row : rows) {
            if (row instanceof Row.Flush) {
                continue;
            }
            Class<?> rowKind = kindOf(row);
            String key = topicOf(row) + '\n' + keyOf(row);
            if (row instanceof Row.Change change && blocked.contains(key)) {
                unplaced.add(change);
                continue;
            }
            // changes of one key share a run (they go to one message) until one finishes it or a second delivery
            // comes: the next may be for the message behind it (see OpenMessages.endedBefore); a send of a key
            // already in the run ends the run
            boolean repeat = row instanceof Row.Change change
                    ? finishing.contains(key) || change.state() == JournalState.DELIVERED && delivered.contains(key)
                    : !keys.add(key);
            if (rowKind != kind || repeat) {
                writeRun(connection, run, unplaced, blocked);
                run.clear();
                keys.clear();
                finishing.clear();
                delivered.clear();
                keys.add(key);
                kind = rowKind;
            }
            run.add(row);
            if (row instanceof Row.Change change && change.finishes()) {
                finishing.add(key);
            } else if (row instanceof Row.Change change && change.state() == JournalState.DELIVERED) {
                delivered.add(key);
            }
        }
        writeRun(connection, run, unplaced, blocked);
        return unplaced;
    }

    private static String topicOf(Row row) {
        return row instanceof Row.Sent sent ? sent.send().topic() : ((Row.Change) row).topic();
    }

    private static String keyOf(Row row) {
        return row instanceof Row.Sent sent ? sent.send().key() : ((Row.Change) row).key();
    }

    /** Rows that share a kind go in one run: new sends, merges, consumers' changes, producers' changes. */
    private static Class<?> kindOf(Row row) {
        if (row instanceof Row.Sent sent) {
            return sent.send().merged() ? JournaledSend.class : Row.Sent.class;
        }
        return ((Row.Change) row).newest() ? Instant.class : Row.Change.class;
    }

    private void writeRun(Connection connection, List<Row> run, List<Row.Change> unplaced, Set<String> blocked)
            throws SQLException {
        if (run.isEmpty()) {
            return;
        }
        Row first = run.get(0);
        if (first instanceof Row.Sent sent && !sent.send().merged()) {
            List<JournaledSend> sends = new ArrayList<>(run.size());
            run.forEach(row -> sends.add(((Row.Sent) row).send()));
            insertMessages(connection, sends);
        } else if (first instanceof Row.Sent) {
            mergeMessages(connection, run);
        } else {
            changeMessages(connection, run, unplaced, blocked);
        }
    }

    private void insertMessages(Connection connection, List<JournaledSend> sends) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_MESSAGE)) {
            for (JournaledSend send : sends) {
                Timestamp at = Timestamp.from(send.sentAt());
                insert.setString(1, send.topic());
                insert.setString(2, send.key());
                insert.setInt(3, send.slot());
                insert.setString(4, send.type().scriptCode());
                insert.setLong(5, send.score());
                Columns.setMillis(insert, 6, send.notBefore());
                Columns.setMillis(insert, 7, send.expireAt());
                insert.setString(8, Columns.headers(send.headers()));
                insert.setBytes(9, send.payload());
                insert.setTimestamp(10, at, Transactions.utc());
                insert.setString(11, JournalState.SENT.column());
                insert.setTimestamp(12, at, Transactions.utc());
                insert.setString(13, Columns.sendId(send));
                insert.addBatch();
            }
            insert.executeBatch();
        }
        Map<String, List<OpenMessages.Open>> open = OpenMessages.lookup(connection, sends.stream().map(s -> new OpenMessages.TopicKey(s.topic(), s.key()))
                .toList());
        try (PreparedStatement transition = connection.prepareStatement(INSERT_TRANSITION);
             PreparedStatement supersede = connection.prepareStatement(SUPERSEDE)) {
            for (JournaledSend send : sends) {
                // the lookup just read back each send's row, inserted above
                List<OpenMessages.Open> rows = Objects.requireNonNull(open.get(send.topic() + '\n' + send.key()),
                        "the row just inserted for a send");
                OpenMessages.Open added = rows.get(rows.size() - 1);
                addTransition(transition, added.id(), JournalState.SENT, 0, send.sentAt(), PRODUCER, null);
                // Redis took this send as a new message, so no older message of its key was waiting there: one the
                // journal holds as waiting was lost (a flush, a failover), and this send takes its place. Redis says
                // whether a delivery of the key was in flight, as the journal's state may not: the consumer's rows
                // come later, or never (killed before its journal wrote them). That one, the oldest open, stays open
                // for its rows; a parked one behind it merges into this. With none in flight, one the journal holds
                // as delivered had ended; its late rows, if any, join its history (see ChangePlacement).
                List<OpenMessages.Open> older = rows.subList(0, rows.size() - 1);
                for (int i = 0; i < older.size(); i++) {
                    OpenMessages.Open superseded = older.get(i);
                    if (!(send.behindDelivery() && i == 0)) {
                        addTransition(transition, superseded.id(), JournalState.MERGED, superseded.attempts(),
                                send.sentAt(), PRODUCER, supersededDetail(send, superseded));
                        supersede.setTimestamp(1, Timestamp.from(send.sentAt()), Transactions.utc());
                        supersede.setLong(2, superseded.id());
                        supersede.addBatch();
                    }
                }
            }
            transition.executeBatch();
            supersede.executeBatch();
        }
    }

    /** Why a send that Redis took as a new message ended an older open message of its key. */
    private static String supersededDetail(JournaledSend send, OpenMessages.Open superseded) {
        if (send.behindDelivery()) {
            return "it waited behind its key's delivery; a new send of the key merges into it";
        }
        if (superseded.state().equals(JournalState.DELIVERED.column())) {
            return "its delivery had ended when a new send of its key came, though its consumer's rows had not come";
        }
        return "Redis no longer held it when a new send of its key came; that send replaces it";
    }

    /**
     * A merge updates the key's newest open message; a merge the journal finds no message for (one sent before the
     * journal was on, or lost in a gap) becomes a new message.
     */
    private void mergeMessages(Connection connection, List<Row> run) throws SQLException {
        List<OpenMessages.TopicKey> keys = new ArrayList<>(run.size());
        run.forEach(row -> keys.add(new OpenMessages.TopicKey(topicOf(row), keyOf(row))));
        Map<String, List<OpenMessages.Open>> open = OpenMessages.lookup(connection, keys);
        List<JournaledSend> unknown = new ArrayList<>();
        try (PreparedStatement update = connection.prepareStatement(MERGE);
             PreparedStatement transition = connection.prepareStatement(INSERT_TRANSITION)) {
            for (Row row : run) {
                JournaledSend send = ((Row.Sent) row).send();
                OpenMessages.Open newest = OpenMessages.pick(open, send.topic(), send.key(), true);
                if (newest == null) {
                    unknown.add(send);
                    continue;
                }
                update.setBoolean(1, send.debounced());
                update.setLong(2, send.score());
                Columns.setMillis(update, 3, send.notBefore());
                Columns.setMillis(update, 4, send.expireAt());
                update.setString(5, Columns.headers(send.headers()));
                update.setBytes(6, send.payload());
                // Redis now holds this send's content, so a delivery of the message names this send
                update.setString(7, Columns.sendId(send));
                update.setTimestamp(8, Timestamp.from(send.sentAt()), Transactions.utc());
                update.setLong(9, newest.id());
                update.addBatch();
                addTransition(transition, newest.id(), JournalState.MERGED, newest.attempts(), send.sentAt(),
                        PRODUCER, null);
            }
            update.executeBatch();
            transition.executeBatch();
        }
        if (!unknown.isEmpty()) {
            mergeIntoFinished(connection, unknown);
        }
    }

    /**
     * Merges that found no open message: a consumer's journal may have finished the message already (it took the
     * message after the merge, and its rows were written before the producer's), so a merge goes to the key's newest
     * message, finished or not, as a transition only. A merge whose key the journal never held becomes a new message.
     */
    private void mergeIntoFinished(Connection connection, List<JournaledSend> sends) throws SQLException {
        Map<String, List<OpenMessages.Open>> any = OpenMessages.lookup(connection, sends.stream().map(s -> new OpenMessages.TopicKey(s.topic(), s.key()))
                .toList(), false);
        List<JournaledSend> unknown = new ArrayList<>();
        try (PreparedStatement transition = connection.prepareStatement(INSERT_TRANSITION)) {
            for (JournaledSend send : sends) {
                OpenMessages.Open newest = OpenMessages.pick(any, send.topic(), send.key(), true);
                if (newest == null) {
                    unknown.add(send);
                } else {
                    addTransition(transition, newest.id(), JournalState.MERGED, newest.attempts(), send.sentAt(),
                            PRODUCER,
                            "merged before its message ended; the message's row was finished first");
                }
            }
            transition.executeBatch();
        }
        if (!unknown.isEmpty()) {
            insertMessages(connection, unknown);
        }
    }

    private void changeMessages(Connection connection, List<Row> run, List<Row.Change> unplaced, Set<String> blocked)
            throws SQLException {
        ChangePlacement placement = ChangePlacement.of(connection, run, unplaced, blocked);
        List<Placed> placed = placement.placed();
        // rows are locked in id order, as every journal's writer and a restore lock them: no two wait on each other
        placed.sort(java.util.Comparator.comparingLong(p -> p.open().id()));
        // one update per message, to where its last change leaves it; its transitions only once the update held
        List<List<Placed>> groups = new ArrayList<>();
        try (PreparedStatement update = connection.prepareStatement(CHANGE)) {
            int i = 0;
            while (i < placed.size()) {
                List<Placed> group = new ArrayList<>();
                long id = placed.get(i).open().id();
                for (; i < placed.size() && placed.get(i).open().id() == id; i++) {
                    group.add(placed.get(i));
                }
                groups.add(group);
                addUpdate(update, group);
            }
            int[] updated = update.executeBatch();
            try (PreparedStatement transition = connection.prepareStatement(INSERT_TRANSITION)) {
                for (int g = 0; g < groups.size(); g++) {
                    List<Placed> group = groups.get(g);
                    if (g < updated.length && updated[g] == 0) {
                        // finished by another writer since it was read as open: the changes go to the key's open
                        // message on the next try, but for an inferred end, which that writer's rows made moot
                        for (Placed p : group.stream().filter(p -> !p.inferred()).toList()) {
                            unplaced.add(p.change());
                            blocked.add(p.change().topic() + '\n' + p.change().key());
                        }
                        continue;
                    }
                    int attempts = group.get(0).open().attempts();
                    for (Placed p : group) {
                        Row.Change change = p.change();
                        attempts = change.attempt() != null ? change.attempt() : attempts;
                        addTransition(transition, p.open().id(), change.state(), attempts, change.time(),
                                change.worker(), change.detail());
                    }
                }
                // a superseded message stays finished: its consumer's changes join its history only
                for (Placed p : placement.superseded()) {
                    Row.Change change = p.change();
                    addTransition(transition, p.open().id(), change.state(),
                            change.attempt() != null ? change.attempt() : p.open().attempts(), change.time(),
                            change.worker(), change.detail());
                }
                transition.executeBatch();
            }
        }
    }

    /** The update that leaves a message where the last of its changes ({@code group}, in order) leaves it. */
    private static void addUpdate(PreparedStatement update, List<Placed> group) throws SQLException {
        OpenMessages.Open open = group.get(0).open();
        int attempts = open.attempts();
        Long score = null;
        Long notBefore = null;
        Row.Change last = group.get(group.size() - 1).change();
        for (Placed p : group) {
            Row.Change change = p.change();
            attempts = change.attempt() != null ? change.attempt() : attempts;
            score = change.score() != null ? change.score() : score;
            notBefore = change.notBefore() != null ? change.notBefore() : notBefore;
        }
        update.setString(1, last.state().column());
        update.setInt(2, attempts);
        if (score == null) {
            update.setNull(3, Types.BIGINT);
        } else {
            update.setLong(3, score);
        }
        update.setBoolean(4, notBefore == null);
        update.setLong(5, notBefore == null ? 0 : notBefore);
        update.setBoolean(6, last.finishes());
        update.setTimestamp(7, Timestamp.from(last.time()), Transactions.utc());
        update.setLong(8, open.id());
        update.addBatch();
    }

    private void addTransition(PreparedStatement statement, long messageId, JournalState state, int attempt,
                               Instant time, @Nullable String worker, @Nullable String detail) throws SQLException {
        statement.setLong(1, messageId);
        statement.setString(2, state.column());
        statement.setInt(3, attempt);
        statement.setTimestamp(4, Timestamp.from(time), Transactions.utc());
        statement.setString(5, worker == null || worker.length() <= 200 ? worker : worker.substring(0, 200));
        statement.setString(6, host);
        statement.setString(7, detail == null || detail.length() <= 1024 ? detail : detail.substring(0, 1024));
        statement.addBatch();
    }
}
