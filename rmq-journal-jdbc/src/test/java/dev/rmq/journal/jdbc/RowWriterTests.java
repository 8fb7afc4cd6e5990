package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch whose rows of many keys interleave, new sends, merges and consumers' changes, leaves in the journal what
 * writing each row alone, in order, would leave: however the writer groups a batch's rows, each key's keep their
 * order.
 */
class RowWriterTests extends JournalTestBase {

    private static final int KEYS = 6;

    /** Each key's rows, in the order they happened: sent, merged twice, delivered, acknowledged (even keys only). */
    private static List<List<Row>> rowsOfEachKey(String prefix, Instant at) {
        List<List<Row>> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = prefix + k;
            Instant t = at.plusMillis(10L * k);
            List<Row> rows = new ArrayList<>();
            rows.add(prioritySend(key, t, false, false));
            rows.add(prioritySend(key, t.plusMillis(1), true, false));
            rows.add(prioritySend(key, t.plusMillis(2), true, false));
            if (k % 2 == 0) {
                rows.add(change(key, JournalState.DELIVERED, t.plusMillis(3)));
                rows.add(change(key, JournalState.ACKED, t.plusMillis(4)));
            }
            keys.add(rows);
        }
        return keys;
    }

    private static Row.Change change(String key, JournalState state, Instant at) {
        return new Row.Change(PRIORITY, key, state, 1, null, null, false, state.finished(), at, "w-1", null, null);
    }

    /** The rows of every key dealt out one by one: a row of each key, then the next row of each, and so on. */
    private static List<Row> interleaved(List<List<Row>> keys) {
        List<Row> batch = new ArrayList<>();
        for (int i = 0; ; i++) {
            boolean any = false;
            for (List<Row> rows : keys) {
                if (i < rows.size()) {
                    batch.add(rows.get(i));
                    any = true;
                }
            }
            if (!any) {
                return batch;
            }
        }
    }

    private static List<Row> batch(String prefix, Instant at) {
        List<Row> batch = new ArrayList<>();
        batch.add(prioritySend(prefix + "earlier", at, true, false));
        batch.addAll(interleaved(rowsOfEachKey(prefix, at)));
        return batch;
    }

    private void write(List<Row> rows) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            assertThat(new RowWriter(Dialect.POSTGRESQL, "test-host").write(connection, rows)).isEmpty();
            connection.commit();
        }
    }

    /** Each key of {@code prefix}, by what follows the prefix: its messages' states and attempts, with transitions. */
    private Map<String, List<String>> journaled(String prefix) throws SQLException {
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        for (MessageRow row : messages(PRIORITY)) {
            if (row.key().startsWith(prefix)) {
                byKey.computeIfAbsent(row.key().substring(prefix.length()), k -> new ArrayList<>())
                        .add(row.state() + "/" + row.attempts() + "/" + row.finished() + " " + transitions(row.id()));
            }
        }
        return byKey;
    }

    @Test
    void aBatchOfInterleavedKindsAndKeysLeavesWhatItsRowsWrittenOneByOneLeave() throws SQLException {
        // a journal of the defaults, for its tables: the rows below go to the writer directly
        open(journal -> { });
        Instant at = Instant.now().minusSeconds(10);
        for (String prefix : List.of("alone-", "batch-")) {
            // a key sent in an earlier batch, whose merge opens this one: the merges' run then comes first
            write(List.of(prioritySend(prefix + "earlier", at.minusSeconds(1), false, false)));
        }
        for (Row row : batch("alone-", at)) {
            write(List.of(row));
        }
        write(batch("batch-", at));

        Map<String, List<String>> alone = journaled("alone-");
        assertThat(alone).hasSize(KEYS + 1);
        assertThat(alone.get("0")).singleElement().asString().startsWith("acked/1/true");
        assertThat(alone.get("1")).singleElement().asString().startsWith("merged/0/false");
        assertThat(journaled("batch-")).isEqualTo(alone);
    }
}
