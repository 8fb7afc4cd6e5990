package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A restore's marks when the database keeps rolling their transaction back: a chunk goes in halves down to single
 * messages, each still marked once. The conflict is the database's answer to a deadlock victim (SQLSTATE 40P01),
 * raised where the restore's writes go, since two writers cannot be made to deadlock a given number of times.
 */
class RestoreMarksTests extends JournalTestBase {

    private static final int MESSAGES = 5;

    /** The ids of {@link #MESSAGES} sent messages. */
    private List<Long> sent() throws SQLException {
        open(journal -> { });
        Instant at = Instant.now().minusSeconds(1);
        List<Row> sends = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            sends.add(prioritySend("marks-" + i, at, false, false));
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            new RowWriter(Dialect.POSTGRESQL, "test-host").write(connection, sends);
            connection.commit();
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            ids.add(message(PRIORITY, "marks-" + i).id());
        }
        return ids;
    }

    @Test
    void aChunkThatConflictsEachTimeItRunsIsMarkedInHalvesDownToSingleMessages() throws Exception {
        List<Long> ids = sent();
        // the size of each transaction's share, each time one runs
        List<Integer> shares = new ArrayList<>();
        Timestamp now = Timestamp.from(Instant.now());

        RestoreMarks.write(dataSource, ids, (transition, update, stillOpen) -> {
            shares.add(stillOpen.size());
            if (stillOpen.size() > 1) {
                throw new SQLException("deadlock detected", "40P01");
            }
            for (long id : stillOpen) {
                transition.setLong(1, id);
                transition.setString(2, JournalState.RESTORED.column());
                transition.setInt(3, 0);
                transition.setTimestamp(4, now, Transactions.utc());
                transition.setString(5, "restore");
                transition.setString(6, "test-host");
                transition.setString(7, "put back into Redis");
                transition.addBatch();
                update.setString(1, JournalState.RESTORED.column());
                update.setBoolean(2, false);
                update.setNull(3, java.sql.Types.BIGINT);
                update.setTimestamp(4, now, Transactions.utc());
                update.setLong(5, id);
                update.addBatch();
            }
        });

        for (long id : ids) {
            assertThat(transitions(id)).containsExactly("sent", "restored");
        }
        // each share of more than one ran as often as a conflict lets a transaction run, then went in halves
        assertThat(shares.stream().filter(size -> size > 1).distinct()).containsExactly(5, 2, 3);
        assertThat(shares.stream().filter(size -> size == 1).count()).isEqualTo(MESSAGES);
    }

    @Test
    void aFailureThatIsNoConflictFailsTheMarksWithoutSplittingThem() throws Exception {
        List<Long> ids = sent();
        List<Integer> shares = new ArrayList<>();

        assertThatThrownBy(() -> RestoreMarks.write(dataSource, ids, (transition, update, stillOpen) -> {
            shares.add(stillOpen.size());
            throw new SQLException("value too long", "22001");
        })).isInstanceOf(SQLException.class).hasMessage("value too long");
        assertThat(shares).containsExactly(MESSAGES);
        assertThat(transitions(ids.get(0))).containsExactly("sent");
    }
}
