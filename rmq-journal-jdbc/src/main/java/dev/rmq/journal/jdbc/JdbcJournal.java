package dev.rmq.journal.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.events.RmqEvent;
import dev.rmq.journal.JournaledChange;
import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageHistory;
import dev.rmq.journal.MessageJournal;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A journal of rmq's messages in PostgreSQL or MySQL/MariaDB: a row per message in {@code rmq_messages} (its whole
 * content, its last state) and a row per change in {@code rmq_transitions} (state, attempt, time, worker, host).
 * Give it to the client; {@link #restore} puts back into a client's Redis what Redis lost:
 *
 * <pre>{@code
 * JdbcJournal journal = JdbcJournal.builder(dataSource).mode("payments", JournalMode.SYNC).build();
 * RmqClient client = RmqClient.builder(redisson).topics(topics).journal(journal).build();
 * ...
 * RestoreReport report = journal.restore(client, RestoreRequest.all());
 * }</pre>
 *
 * <p>{@link Builder#build()} creates and migrates the schema with Flyway, with a history table of its own
 * ({@value #HISTORY_TABLE}), unless {@link Builder#migrate(boolean)} says not to, and then starts the writer.
 * {@link #close()} stops it; a journal runs once: it cannot be started again.
 */
public final class JdbcJournal implements MessageJournal, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JdbcJournal.class);
    /** Flyway's history table for the journal's schema, apart from an application's own. */
    public static final String HISTORY_TABLE = "rmq_journal_schema_history";
    /** How long a restore waits for the rows buffered before it to be written. */
    private static final Duration RESTORE_FLUSH = Duration.ofMinutes(1);

    private final JournalSettings settings;
    private final JournalWriter writer;
    private final JournalRestore restorer;
    private final JournalHistory history;
    private final ConsumerRows consumerRows = new ConsumerRows();
    private final AtomicReference<State> lifecycle = new AtomicReference<>(State.LATENT);
    /**
     * Completes waiting senders' stages, off the writer's and the overflow's threads. Once closed it runs what still
     * comes (rows the writer completes after a close that timed out) on the caller's thread, so that no sender's
     * stage is left uncompleted by a refused task.
     */
    private final ThreadPoolExecutor callbacks = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "rmq-journal-callback");
                thread.setDaemon(true);
                return thread;
            }, (task, pool) -> task.run());

    private JdbcJournal(JournalSettings settings, Dialect dialect) {
        this.settings = settings;
        Retention retention = new Retention(settings.retention(), settings.pruneInterval());
        this.writer = new JournalWriter(settings.dataSource(), new RowWriter(dialect, settings.host()), retention,
                settings.bufferCapacity(), settings.batchSize(), settings.whenUnavailable(), settings.blockTimeout());
        this.restorer = new JournalRestore(settings.dataSource(), dialect, settings.host());
        this.history = new JournalHistory(settings.dataSource());
    }

    /** A journal is built latent, runs from {@link Builder#build()} on, and stops once, at {@link #close()}. */
    private enum State { LATENT, STARTED, STOPPED }

    private void start() {
        if (!lifecycle.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("the journal was started before, or closed: a journal starts once");
        }
        writer.start();
    }

    /**
     * A journal that writes through {@code dataSource}. Its writer takes a connection for each batch it writes, so
     * give it a pool (Spring Boot's {@code DataSource} is one): without one, each batch opens a connection of its
     * own, which costs the database a new session (on PostgreSQL, a process) for every batch.
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The mode of a topic's sends: its own, or the journal's default. */
    public JournalMode mode(String topic) {
        return settings.modeOf(topic);
    }

    @Override
    public CompletionStage<Void> sent(List<JournaledSend> sends) {
        List<CompletableFuture<Void>> waits = null;
        for (JournaledSend send : sends) {
            JournalMode mode = settings.modeOf(send.topic());
            if (mode == JournalMode.OFF) {
                continue;
            }
            CompletableFuture<Void> wait;
            if (mode == JournalMode.SYNC) {
                CompletableFuture<Void> written = new CompletableFuture<>();
                wait = writer.add(new Row.Sent(send, written)).thenCompose(room -> written);
            } else {
                wait = writer.add(new Row.Sent(send, null));
            }
            if (!wait.isDone() || wait.isCompletedExceptionally()) {
                if (waits == null) {
                    waits = new ArrayList<>();
                }
                waits.add(wait);
            }
        }
        if (waits == null) {
            return CompletableFuture.completedFuture(null);
        }
        Duration limit = settings.blockTimeout().plus(settings.syncTimeout());
        CompletableFuture<Void> waited = CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new))
                .orTimeout(limit.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(error -> {
                    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (cause instanceof TimeoutException) {
                        throw new JournalUnavailableException("the journal's row was not committed within "
                                + limit.toMillis() + " ms (block-timeout plus sync-timeout): Redis holds the message,"
                                + " but a restore would not bring it back until its row is written (it still waits in"
                                + " the buffer)");
                    }
                    throw cause instanceof RuntimeException runtime ? runtime
                            : new JournalUnavailableException(cause.toString(), cause);
                });
        // the sender's continuation runs on a thread of its own, never on the writer's: a callback that sends
        // synchronously again must not hold up the writer it waits for
        return waited.whenCompleteAsync((done, error) -> { }, callbacks);
    }

    @Override
    public void changed(JournaledChange change) {
        if (settings.modeOf(change.topic()) == JournalMode.OFF) {
            return;
        }
        boolean cancelled = change.kind() == JournaledChange.Kind.CANCELLED;
        boolean delayed = change.kind() == JournaledChange.Kind.DELAYED;
        JournalState state = cancelled ? JournalState.CANCELLED : JournalState.RESCHEDULED;
        String detail = switch (change.kind()) {
            case REPRIORITIZED -> "priority " + change.score();
            case DELAYED -> change.score() > 0 ? "not before " + Instant.ofEpochMilli(change.score()) : "visible now";
            default -> null;
        };
        writer.add(new Row.Change(change.topic(), change.key(), state, null, cancelled || delayed ? null : change.score(),
                delayed ? change.score() : null, true, cancelled, change.time(), "producer", detail));
    }

    @Override
    public boolean journals(String topic) {
        return settings.modeOf(topic) != JournalMode.OFF;
    }

    /**
     * Records each key as cancelled by a clear, waiting for room in the buffer key by key (up to the block timeout
     * each), so that a large clear is not dropped row by row as an overflowing change would be.
     */
    @Override
    public CompletionStage<Void> cleared(String topic, List<String> keys, Instant time) {
        if (keys.isEmpty() || !journals(topic)) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(() -> {
            for (String key : keys) {
                try {
                    writer.enqueueWaiting(new Row.Change(topic, key, JournalState.CANCELLED, null, null, null, true, true,
                            time, "clear", null), settings.blockTimeout()).join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new JournalUnavailableException("interrupted while journaling a clear of topic '" + topic
                            + "'; its messages are gone from Redis, but a restore may bring some back", e);
                }
            }
        }, callbacks);
    }

    @Override
    public void onEvent(RmqEvent event) {
        if (settings.modeOf(event.topic()) == JournalMode.OFF) {
            return;
        }
        consumerRows.of(event).forEach(writer::add);
    }

    /**
     * Puts back into {@code client}'s Redis every journaled message of its topics whose last state is not finished
     * (see {@link RestoreRequest}), after writing what the buffer holds. Redis keeps what it still holds, so a second
     * run changes nothing.
     *
     * @param client the client whose Redis gets the messages back, and whose topics say where each one goes:
     *               usually the one this journal was given to
     * @throws IllegalStateException       after {@link #close()}
     * @throws JournalUnavailableException when the database cannot be read
     */
    public RestoreReport restore(RmqClient client, RestoreRequest request) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null: the restore writes to its Redis");
        }
        if (request == null) {
            throw new IllegalArgumentException("request must not be null; RestoreRequest.all() restores every topic");
        }
        if (lifecycle.get() == State.STOPPED) {
            throw new IllegalStateException("the journal is closed; a restore needs a running journal");
        }
        String topic = request.topic();
        if (topic != null) {
            client.topics().require(topic);
        }
        try {
            flush(RESTORE_FLUSH);
        } catch (JournalUnavailableException e) {
            log.warn("restore goes on without the rows the journal could not write within {} s ({}): a message whose"
                    + " end they record may be put back and delivered again", RESTORE_FLUSH.toSeconds(), e.getMessage());
        }
        try {
            RestoreReport report = restorer.restore(request, client.restorer(), client.topics());
            if (request.dryRun()) {
                log.info("restore dry run ({}): would put back {} of {} open journaled messages; {} are still in"
                        + " Redis, {} have expired, {} are of unknown topics or slots; nothing was written ({} ms)",
                        describe(request), report.restored(), report.examined(), report.present(), report.expired(),
                        report.skipped(), report.took().toMillis());
                return report;
            }
            log.info("restore ({}) put back {} of {} open journaled messages in {} ms; {} were still in Redis, {} had"
                    + " expired{}, {} were of unknown topics or slots", describe(request), report.restored(),
                    report.examined(), report.took().toMillis(), report.present(), report.expired(),
                    request.expired() ? " (with expired=true they are put back without a time to live, among those"
                            + " counted as put back)" : " and were marked so",
                    report.skipped());
            return report;
        } catch (SQLException e) {
            throw new JournalUnavailableException("restore failed on the journal, which it reads and marks (running it"
                    + " again is safe: what this one put back, Redis now holds, and the next finds it present): " + e, e);
        }
    }

    private static String describe(RestoreRequest request) {
        if (request.topic() == null) {
            return "every topic";
        }
        return "topic " + request.topic() + (request.key() == null ? "" : ", key \"" + request.key() + "\"");
    }

    /**
     * Waits until every row queued so far is written.
     *
     * @throws JournalUnavailableException when they are not written within {@code timeout}
     */
    public void flush(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be a positive duration, was " + timeout);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            writer.flush(new Row.Flush(Instant.now(), done), timeout);
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JournalUnavailableException("interrupted while waiting for the journal's rows to be written", e);
        } catch (Exception e) {
            throw new JournalUnavailableException("the journal's buffered rows were not written within "
                    + timeout.toMillis() + " ms: " + e, e);
        }
    }

    /**
     * A key's messages, the latest first, with their transitions: the one that waits or runs, and those that finished
     * within the retention. What the writer still buffers is not there yet ({@link #flush} writes it).
     */
    @Override
    public List<MessageHistory> history(String topic, String key, int limit) {
        if (topic == null || key == null || limit < 1) {
            throw new IllegalArgumentException("a history needs a topic, a key and a limit of 1 or more; was topic "
                    + topic + ", key " + key + ", limit " + limit);
        }
        try {
            return history.read(topic, key, limit);
        } catch (SQLException e) {
            throw new JournalUnavailableException("the journal could not read the history of message '" + key
                    + "' of topic '" + topic + "': " + e, e);
        }
    }

    /** The writer's buffer, lag and counts. */
    public JournalStats stats() {
        return writer.stats();
    }

    /**
     * Removes now, whatever the retention, finished messages last changed before {@code before} and open ones whose
     * time to live ran out before it (Redis dropped them unseen); returns how many.
     */
    public long prune(Instant before) {
        if (before == null) {
            throw new IllegalArgumentException("before must not be null: finished messages last changed before it go");
        }
        try {
            return writer.pruneNow(before);
        } catch (SQLException e) {
            throw new JournalUnavailableException("the journal could not prune: " + e, e);
        }
    }

    /**
     * Writes what is buffered, for up to the close timeout, then stops. Rows that could not be written are logged.
     * A second close does nothing.
     */
    @Override
    public void close() {
        if (lifecycle.getAndSet(State.STOPPED) == State.STOPPED) {
            return;
        }
        writer.close(settings.closeTimeout());
        callbacks.shutdown();
    }

    /** Checks the journal's settings; {@link #build()} migrates the schema and starts the writer. */
    public static final class Builder extends JournalSettings.Builder<Builder> {

        private Builder(DataSource dataSource) {
            super(dataSource);
        }

        public JdbcJournal build() {
            JournalSettings settings = settings();
            Dialect dialect;
            try (Connection connection = settings.dataSource().getConnection()) {
                dialect = Dialect.of(connection);
            } catch (SQLException e) {
                throw new JournalUnavailableException("the journal cannot reach its database: " + e, e);
            }
            if (settings.migrate()) {
                Flyway.configure().dataSource(settings.dataSource()).locations(dialect.migrations())
                        .table(HISTORY_TABLE).baselineOnMigrate(true).baselineVersion("0").load().migrate();
            }
            JdbcJournal journal = new JdbcJournal(settings, dialect);
            journal.start();
            return journal;
        }
    }

    static String localHost() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            return name.length() <= 200 ? name : name.substring(0, 200);
        } catch (Exception e) {
            return "unknown";
        }
    }
}
