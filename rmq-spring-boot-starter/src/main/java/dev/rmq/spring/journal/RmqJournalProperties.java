package dev.rmq.spring.journal;

import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.journal.jdbc.WhenUnavailable;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.Map;

/**
 * The journal of messages in the application's database ({@code rmq.journal.*}). What is not set is left null, and
 * takes the journal builder's default.
 *
 * @param enabled          Whether messages are journaled. Needs a DataSource (PostgreSQL or MySQL/MariaDB) and
 *                         rmq-journal-jdbc on the class path.
 * @param mode             The mode of every topic without one of its own: async (rows written in batches behind the
 *                         sends), sync (a send returns once its row committed) or off.
 * @param topics           Each topic's own mode, by topic name.
 * @param bufferCapacity   The most rows that wait for the writer.
 * @param batchSize        The most rows one transaction writes.
 * @param whenUnavailable  What sends do when the buffer is full because the database is away or slow: block (wait up
 *                         to block-timeout, then fail) or continue (go on; the rows are dropped and counted).
 * @param blockTimeout     How long a send waits for room in a full buffer.
 * @param syncTimeout      How long a synchronous send waits for its row to commit.
 * @param historyRetention How long finished messages stay in the journal, readable as a key's history
 *                         ({@code RmqInspector.history}); 0 keeps all.
 * @param pruneInterval    How often messages past the retention are removed: finished ones, and open ones whose time to live ran out.
 * @param closeTimeout     How long the shutdown waits for buffered rows to be written.
 * @param host             The host name written with each transition; this machine's by default.
 * @param migrate          Whether the journal's tables are created and migrated at start-up (Flyway, with a history
 *                         table of its own).
 * @param restoreOnStartup Whether every unfinished journaled message is put back at start-up, for a Redis that keeps
 *                         nothing across restarts. What Redis still holds is left alone.
 */
@ConfigurationProperties("rmq.journal")
public record RmqJournalProperties(@DefaultValue("false") boolean enabled,
                                   @Nullable JournalMode mode,
                                   Map<String, JournalMode> topics,
                                   @Nullable Integer bufferCapacity,
                                   @Nullable Integer batchSize,
                                   @Nullable WhenUnavailable whenUnavailable,
                                   @Nullable Duration blockTimeout,
                                   @Nullable Duration syncTimeout,
                                   @Nullable Duration historyRetention,
                                   @Nullable Duration pruneInterval,
                                   @Nullable Duration closeTimeout,
                                   @Nullable String host,
                                   @Nullable Boolean migrate,
                                   @DefaultValue("false") boolean restoreOnStartup) {

    public RmqJournalProperties {
        topics = topics == null ? Map.of() : Map.copyOf(topics);
    }
}
