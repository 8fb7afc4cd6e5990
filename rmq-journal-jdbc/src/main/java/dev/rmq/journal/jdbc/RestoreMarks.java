package dev.rmq.journal.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A restore's marks in the journal: the transitions and updates of the messages it put back, merged or found
 * expired, {@link #CHUNK} messages a transaction, each written only for a message still open once locked. A
 * consumer's journal may have finished one since the restore read it, and its history must not say otherwise.
 *
 * <p>Small transactions, because the consumers' writers keep writing beside a restore, often the very messages it
 * just put back: a writer's batch locks each of its runs' rows in id order, but not the whole batch's, so a
 * transaction holding a thousand rows would meet writers in deadlock after deadlock. A chunk that conflicts with
 * them each time it runs ({@link Transactions#run} runs it again a few times) goes in halves, each a transaction of
 * its own, down to a single message: a transaction that locks one row may wait for a writer, but never deadlocks.
 * Each message's mark stands alone, so splitting changes nothing of what is written.
 */
final class RestoreMarks {

    /** The most messages one transaction marks. */
    static final int CHUNK = 100;

    private RestoreMarks() {
    }

    /** The writes of one transaction's share. */
    interface Batches {
        /**
         * Adds the writes of the messages in {@code stillOpen}, and of no other.
         *
         * @param stillOpen which messages of one transaction's share are still open: a consumer may have finished one
         *                  meanwhile
         */
        void fill(PreparedStatement transition, PreparedStatement update, Set<Long> stillOpen) throws SQLException;
    }

    /** Writes the marks of the messages {@code ids}, in chunks; {@code batches} says what to write for each. */
    static void write(DataSource dataSource, List<Long> ids, Batches batches) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            for (int from = 0; from < ids.size(); from += CHUNK) {
                mark(connection, ids.subList(from, Math.min(ids.size(), from + CHUNK)), batches);
            }
        }
    }

    /** Marks {@code chunk} in one transaction, or in halves when conflicts roll it back each time it runs. */
    private static void mark(Connection connection, List<Long> chunk, Batches batches) throws SQLException {
        try {
            Transactions.run(connection, c -> markInTransaction(c, chunk, batches));
        } catch (SQLException | RuntimeException e) {
            if (chunk.size() == 1 || !Transactions.isRolledBack(e)) {
                throw e;
            }
            int half = chunk.size() / 2;
            mark(connection, chunk.subList(0, half), batches);
            mark(connection, chunk.subList(half, chunk.size()), batches);
        }
    }

    private static Set<Long> markInTransaction(Connection c, List<Long> chunk, Batches batches) throws SQLException {
        Set<Long> stillOpen = new HashSet<>();
        try (PreparedStatement lock = c.prepareStatement("SELECT id FROM rmq_messages WHERE finished = FALSE AND id IN ("
                + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ") ORDER BY id FOR UPDATE")) {
            for (int i = 0; i < chunk.size(); i++) {
                lock.setLong(i + 1, chunk.get(i));
            }
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    stillOpen.add(rows.getLong(1));
                }
            }
        }
        try (PreparedStatement transition = c.prepareStatement("INSERT INTO rmq_transitions"
                + " (message_id, state, attempt, at, worker, host, detail) VALUES (?, ?, ?, ?, ?, ?, ?)");
             PreparedStatement update = c.prepareStatement("UPDATE rmq_messages SET state = ?,"
                     + " finished = ?, expire_at = ?, updated_at = ? WHERE id = ? AND finished = FALSE")) {
            batches.fill(transition, update, stillOpen);
            transition.executeBatch();
            update.executeBatch();
        }
        return stillOpen;
    }
}
