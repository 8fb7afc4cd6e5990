package dev.rmq.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * The journal of a run that injects {@code redis-flush}: the standalone deployment's at-least-once topics, in a
 * PostgreSQL the harness started. The producer journals its sends synchronously, so that every send it counts as
 * stored has its row; consumers journal their deliveries and acknowledgements behind, asynchronously. At-most-once
 * topics are left out: their deliveries' rows lag, and a restore could bring back what was already delivered.
 *
 * <p>The journal's writer takes a connection for each batch it writes, so it is given a pool, as an application's
 * would be: without one, every batch would open a connection of its own, and PostgreSQL would start a process for
 * each, on the machine that also runs every other process of the run.
 */
final class HarnessJournal implements AutoCloseable {

    /** The children's argument that carries the database's JDBC URL, or {@code -} for no journal. */
    static final String ARG = "journal";

    private final HikariDataSource pool;
    private final JdbcJournal journal;

    private HarnessJournal(HikariDataSource pool, JdbcJournal journal) {
        this.pool = pool;
        this.journal = journal;
    }

    static HarnessJournal open(String jdbcUrl, JournalMode mode) {
        HikariConfig config = new HikariConfig();
        // the driver sends a batch of inserts as multi-row statements, as the journal's documentation advises
        config.setJdbcUrl(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true");
        // the writer (which also prunes) holds one connection at a time; a restore takes one beside it
        config.setMaximumPoolSize(3);
        config.setMinimumIdle(1);
        config.setPoolName("rmq-faults-journal");
        HikariDataSource pool = new HikariDataSource(config);
        try {
            JdbcJournal.Builder journal = JdbcJournal.builder(pool).mode(JournalMode.OFF)
                    .closeTimeout(Duration.ofSeconds(5));
            for (TopicDefinition topic : Workload.topics(Deployment.STANDALONE)) {
                if (topic.delivery() == DeliveryGuarantee.AT_LEAST_ONCE) {
                    journal.mode(topic.name(), mode);
                }
            }
            return new HarnessJournal(pool, journal.build());
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** The journal a child's arguments ask for, or null. */
    static @Nullable HarnessJournal fromArgs(ChildArgs args, JournalMode mode) {
        String url = args.getOrDefault(ARG, "-");
        return url.equals("-") ? null : open(url, mode);
    }

    JdbcJournal journal() {
        return journal;
    }

    /** Closes the journal, which writes what it still holds, then the pool it wrote through. */
    @Override
    public void close() {
        try {
            journal.close();
        } finally {
            pool.close();
        }
    }
}
