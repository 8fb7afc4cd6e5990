package dev.rmq.journal.jdbc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Removes finished messages (and their transitions) that have not changed for the retention period, so that the
 * tables stay bounded. Runs on the writer's thread between batches, at most once per interval, in chunks, so that no
 * transaction holds many locks.
 */
final class Retention {

    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    private static final int CHUNK = 1_000;

    private final Duration keep;
    private final Duration interval;
    private final AtomicLong pruned = new AtomicLong();
    private long lastNanos;

    /**
     * @param keep     how long a finished message is kept; zero keeps all
     * @param interval how often to look
     */
    Retention(Duration keep, Duration interval) {
        this.keep = keep;
        this.interval = interval;
        this.lastNanos = System.nanoTime();
    }

    /** How long the writer waits for a row before it looks whether pruning is due. */
    long idleWaitMillis() {
        return Math.max(10, Math.min(interval.toMillis(), 1_000));
    }

    void pruneIfDue(DataSource dataSource, Dialect dialect) {
        long now = System.nanoTime();
        if (keep.isZero() || now - lastNanos < interval.toNanos()) {
            return;
        }
        lastNanos = now;
        try {
            pruneNow(dataSource, dialect, Instant.now().minus(keep));
        } catch (SQLException | RuntimeException e) {
            log.warn("the journal could not prune finished messages older than {}: {}; it tries again in {}", keep,
                    e.toString(), interval);
        }
    }

    /** Removes finished messages last changed before {@code before}; returns how many. */
    long pruneNow(DataSource dataSource, Dialect dialect, Instant before) throws SQLException {
        long total = 0;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(dialect.pruneFinished(CHUNK))) {
            connection.setAutoCommit(true);
            delete.setTimestamp(1, Timestamp.from(before), Transactions.utc());
            int removed;
            do {
                removed = delete.executeUpdate();
                total += removed;
            } while (removed == CHUNK);
        }
        pruned.addAndGet(total);
        if (total > 0) {
            log.debug("the journal pruned {} finished messages older than {}", total, before);
        }
        return total;
    }

    long pruned() {
        return pruned.get();
    }
}
