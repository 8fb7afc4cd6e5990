package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A restore while consumers' journal writers keep writing. A writer's batch locks each run's rows in id order, but
 * a batch of several runs may lock a high id before a low one; a restore that held all its rows in one transaction
 * met such a batch in a deadlock, again and again at a high rate of writes, and failed.
 */
class RestoreBesideWritersTests extends JournalTestBase {

    private static final int MESSAGES = 150;

    @AfterEach
    void resetDeadlockTimeout() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER DATABASE postgres RESET deadlock_timeout");
        }
    }

    @Test
    void aWriterThatLocksAHighIdBeforeALowOneNeitherWaitsForNorDeadlocksWithARestore() throws Exception {
        open(journal -> { });
        Instant sent = Instant.now().minusSeconds(1);
        RowWriter writer = new RowWriter(Dialect.POSTGRESQL, "test-host");
        List<Row> sends = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            sends.add(prioritySend(key(i), sent, false, false));
        }
        try (Connection setup = dataSource.getConnection(); Statement statement = setup.createStatement()) {
            // Whichever of two transactions in a deadlock checks first is rolled back: the writer's, here, so that a
            // deadlock shows as its failure rather than as a restore that quietly ran its transaction again.
            statement.execute("ALTER DATABASE postgres SET deadlock_timeout = '30s'");
            setup.setAutoCommit(false);
            writer.write(setup, sends);
            setup.commit();
        }

        try (Connection consumer = dataSource.getConnection(); Statement statement = consumer.createStatement()) {
            statement.execute("SET deadlock_timeout = '100ms'");
            consumer.setAutoCommit(false);
            // a writer's batch changes the newest message first, and holds its lock
            assertThat(writer.write(consumer, List.of(delivered(MESSAGES - 1, sent)))).isEmpty();
            CompletableFuture<RestoreReport> restore = CompletableFuture.supplyAsync(
                    () -> journal.restore(client, RestoreRequest.all()));
            // the restore has put every message back into Redis and waits to mark the newest
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingOnALock() > 0);
            // then the batch changes the oldest, which the restore has marked already
            assertThat(writer.write(consumer, List.of(delivered(0, sent)))).isEmpty();
            consumer.commit();

            RestoreReport report = restore.get(30, TimeUnit.SECONDS);
            assertThat(report.restored()).isEqualTo(MESSAGES);
        }
        assertThat(transitions(message(PRIORITY, key(0)).id())).containsExactly("sent", "restored", "delivered");
        // marked only where the writer's delivery had not finished it: a delivered message stays open
        assertThat(transitions(message(PRIORITY, key(MESSAGES - 1)).id()))
                .containsExactly("sent", "delivered", "restored");
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE state = 'restored'")).isEqualTo(MESSAGES);
    }

    private static String key(int i) {
        return String.format("beside-%03d", i);
    }

    private static Row.Change delivered(int i, Instant sent) {
        return new Row.Change(PRIORITY, key(i), JournalState.DELIVERED, 1, null, null, false, false,
                sent.plusMillis(100), "w-1", null);
    }
}
