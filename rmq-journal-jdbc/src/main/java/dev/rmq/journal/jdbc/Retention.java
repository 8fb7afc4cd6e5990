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
 * Removes finished messages (and their transitions) that have not changed for the retention period, and open ones
 * whose time to live ran out that long ago, so that the tables stay bounded. Redis drops a message whose time to live
 * runs out while it waits (or moves it to the dead queue) without a consumer seeing it, so no change finishes its row; a restore leaves it out, and
 * nothing else would ever remove it. Runs on the writer's thread between batches, at most once per interval, in
 * chunks, so that no transaction holds many locks.
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

    /**
     * Removes finished messages last changed before {@code before}, and open ones whose time to live ran out before
     * it; returns how many.
     */
    long pruneNow(DataSource dataSource, Dialect dialect, Instant before) throws SQLException {
        long finished;
        long expired;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement delete = connection.prepareStatement(dialect.pruneFinished(CHUNK))) {
                delete.setTimestamp(1, Timestamp.from(before), Transactions.utc());
                finished = inChunks(delete);
            }
            try (PreparedStatement delete = connection.prepareStatement(dialect.pruneExpired(CHUNK))) {
                delete.setLong(1, before.toEpochMilli());
                expired = inChunks(delete);
            }
        }
        pruned.addAndGet(finished + expired);
        if (finished + expired > 0) {
            log.debug("the journal pruned {} finished messages older than {} and {} whose time to live ran out before",
                    finished, before, expired);
        }
        return finished + expired;
    }

    private static long inChunks(PreparedStatement delete) throws SQLException {
        long total = 0;
        int removed;
        do {
            removed = delete.executeUpdate();
            total += removed;
        } while (removed == CHUNK);
        return total;
    }

    long pruned() {
        return pruned.get();
    }
}
