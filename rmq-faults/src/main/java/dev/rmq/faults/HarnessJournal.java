package dev.rmq.faults;

import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

import java.time.Duration;

/**
 * The journal of a run that injects {@code redis-flush}: the standalone deployment's at-least-once topics, in a
 * PostgreSQL the harness started. The producer journals its sends synchronously, so that every send it counts as
 * stored has its row; consumers journal their deliveries and acknowledgements behind, asynchronously. At-most-once
 * topics are left out: their deliveries' rows lag, and a restore could bring back what was already delivered.
 */
final class HarnessJournal {

    /** The children's argument that carries the database's JDBC URL, or {@code -} for no journal. */
    static final String ARG = "journal";

    private HarnessJournal() {
    }

    static JdbcJournal open(String jdbcUrl, JournalMode mode) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl);
        JdbcJournal.Builder journal = JdbcJournal.builder(dataSource).mode(JournalMode.OFF)
                .closeTimeout(Duration.ofSeconds(5));
        for (TopicDefinition topic : Workload.topics(Deployment.STANDALONE)) {
            if (topic.delivery() == DeliveryGuarantee.AT_LEAST_ONCE) {
                journal.mode(topic.name(), mode);
            }
        }
        return journal.build();
    }

    /** The journal a child's arguments ask for, or null. */
    static @Nullable JdbcJournal fromArgs(ChildArgs args, JournalMode mode) {
        String url = args.getOrDefault(ARG, "-");
        return url.equals("-") ? null : open(url, mode);
    }
}
