package dev.rmq.outbox.jdbc;

import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Moves the outbox's rows to Redis, oldest first, a batch at a time: the batch is claimed in a short transaction
 * ({@code SKIP LOCKED}, then a claim deadline, so that another instance's relay takes other rows), sent, and
 * finished in a second transaction that deletes the rows Redis took. A relay that dies between Redis's answer and
 * that commit leaves its rows claimed; once the claim runs out (a minute by default) they are sent again, and merge into the
 * message of their key while that waits. A row Redis refuses stays, with why, and is tried again after a backoff;
 * an unreachable Redis or database stops the relay for a backoff, said once per outage.
 */
final class OutboxRelay implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    private static final Duration MAX_RETRY = Duration.ofMinutes(5);
    private static final Duration COUNT_EVERY = Duration.ofSeconds(5);

    private final DataSource dataSource;
    private final RmqProducer producer;
    private final int batchSize;
    private final Duration idle;
    /** How long a relay's claim on its batch lasts: far longer than a batch takes to send. */
    private final Duration claim;
    private final OutboxListener listener;
    private final Clock clock = Clock.systemUTC();
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private volatile OutboxRows.Backlog backlog = new OutboxRows.Backlog(0, 0, null);
    /** The current run's stop flag: a run stopped, then started again, is a new run, which the old cannot stop. */
    private volatile AtomicBoolean stopping = new AtomicBoolean();
    private long lastCountNanos;
    /** What is down, while something is: said once when it goes, once when it is back. */
    private String down = "";
    private long downSinceNanos;
    private Duration backoff = Duration.ofMillis(100);

    OutboxRelay(DataSource dataSource, RmqProducer producer, int batchSize, Duration idle, Duration claim,
                OutboxListener listener) {
        this.dataSource = dataSource;
        this.producer = producer;
        this.batchSize = batchSize;
        this.idle = idle;
        this.claim = claim;
        this.listener = listener;
    }

    void stop() {
        stopping.set(true);
    }

    /** Lets the relay run again after {@link #stop()}, on a new thread: the run before keeps its own stop. */
    void resume() {
        stopping = new AtomicBoolean();
    }

    OutboxStats stats() {
        OutboxRows.Backlog counted = backlog;
        Duration age = counted.oldest() == null ? Duration.ZERO
                : Duration.between(counted.oldest(), clock.instant()).isNegative() ? Duration.ZERO
                : Duration.between(counted.oldest(), clock.instant());
        return new OutboxStats(counted.rows(), counted.refused(), age, relayed.get(), refusals.get());
    }

    @Override
    public void run() {
        AtomicBoolean stopped = stopping;
        while (!stopped.get()) {
            int handled;
            try {
                handled = relayBatch();
                countIfDue();
            } catch (RuntimeException | SQLException e) {
                trouble(e instanceof SQLException ? "the database" : "Redis", e);
                backOff(stopped);
                continue;
            } catch (LinkageError | AssertionError e) {
                // the thread goes on: ended, it would relay nothing more until a restart
                log.error("the outbox relay failed: {}; it tries again in {}", e, backoff, e);
                backOff(stopped);
                continue;
            }
            recovered();
            if (handled < batchSize) {
                pause(idle, stopped);
            }
        }
    }

    /** Waits out the backoff after a failure, and doubles it for the next, up to {@link #MAX_BACKOFF}. */
    private void backOff(AtomicBoolean stopped) {
        pause(backoff, stopped);
        backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }

    /**
     * One batch: claimed in a transaction of its own, sent, then finished in another (what Redis took deleted, what
     * it refused kept for later, what had no answer released). Returns how many rows it claimed.
     */
    int relayBatch() throws SQLException {
        Instant now = clock.instant();
        List<OutboxRow> rows;
        try (RelayTransaction transaction = RelayTransaction.begin(dataSource)) {
            try {
                rows = OutboxRows.claim(transaction.connection(), batchSize, now, now.plus(claim),
                        now.plus(MAX_RETRY), this::reportUnreadable);
            } catch (SQLException | RuntimeException e) {
                transaction.rollbackQuietly();
                throw e;
            }
        }
        if (rows.isEmpty()) {
            return 0;
        }
        List<CompletableFuture<SendReceipt>> sends = new ArrayList<>(rows.size());
        for (OutboxRow row : rows) {
            sends.add(send(row));
        }
        List<OutboxRow> taken = new ArrayList<>();
        List<Long> unanswered = new ArrayList<>();
        List<Map.Entry<OutboxRow, Throwable>> refused = new ArrayList<>();
        RuntimeException unreachable = null;
        // well within the claim, so that no other relay takes a row whose send is still out
        long answerBy = System.nanoTime() + claim.toNanos() / 2;
        for (int i = 0; i < rows.size(); i++) {
            OutboxRow row = rows.get(i);
            try {
                sends.get(i).get(Math.max(0, answerBy - System.nanoTime()), TimeUnit.NANOSECONDS);
                taken.add(row);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unanswered.add(row.id());
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                if (isRefusal(cause)) {
                    refused.add(Map.entry(row, cause));
                } else {
                    // its outcome is unknown: the row is sent again (merging) once Redis is back
                    unanswered.add(row.id());
                    if (unreachable == null) {
                        unreachable = cause instanceof RuntimeException runtime ? runtime
                                : new RmqUnavailableException(cause.toString(), cause);
                    }
                }
            }
        }
        finish(taken.stream().map(OutboxRow::id).toList(), refused, unanswered, now);
        Instant relayedAt = clock.instant();
        for (OutboxRow row : taken) {
            relayed.incrementAndGet();
            listener.relayed(row.topic(), Duration.between(row.createdAt(), relayedAt));
        }
        if (unreachable != null) {
            throw unreachable;
        }
        return rows.size();
    }

    /**
     * Records what became of a claimed batch, trying again whatever the database refuses (a deadlock between two
     * relays, a lost connection, no connection to be had) until the claim is about to run out: until then the claim
     * keeps the rows this relay's, so a retry finishes them and no other relay sends them again.
     */
    private void finish(List<Long> taken, List<Map.Entry<OutboxRow, Throwable>> refused, List<Long> unanswered,
                        Instant now) throws SQLException {
        Instant giveUp = now.plus(claim.minus(claim.dividedBy(10)));
        for (int attempt = 1; ; attempt++) {
            try {
                finishOnce(taken, refused, unanswered, now);
                break;
            } catch (SQLException e) {
                long pauseMs = Math.min(1_000, 20L * attempt);
                if (clock.instant().plusMillis(pauseMs).isAfter(giveUp)) {
                    throw e;
                }
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException stop) {
                    // the claim keeps the rows this relay's for a while: the next run finishes them, or another relay
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted while finishing a batch of the outbox", stop);
                }
            }
        }
        refused.forEach(entry -> reportRefusal(entry.getKey(), entry.getValue()));
    }

    private void finishOnce(List<Long> taken, List<Map.Entry<OutboxRow, Throwable>> refused, List<Long> unanswered,
                            Instant now) throws SQLException {
        RelayTransaction transaction = RelayTransaction.begin(dataSource);
        try {
            Connection connection = transaction.connection();
            OutboxRows.delete(connection, taken);
            for (Map.Entry<OutboxRow, Throwable> entry : refused) {
                refuse(connection, entry.getKey(), entry.getValue(), now);
            }
            OutboxRows.release(connection, unanswered);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            transaction.rollbackQuietly();
            transaction.closeQuietly();
            throw e;
        }
        // committed: a connection that cannot be given back as it came (a pool replaced it) changes nothing of it
        transaction.closeQuietly();
    }

    private CompletableFuture<SendReceipt> send(OutboxRow row) {
        try {
            return producer.sendAsync(row.message()).toCompletableFuture();
        } catch (RuntimeException e) {
            // refused before it reached Redis (a topic this client no longer has, a payload too large)
            return CompletableFuture.failedFuture(e);
        }
    }

    private static boolean isRefusal(Throwable cause) {
        return cause instanceof BacklogFullException || cause instanceof PayloadTooLargeException
                || cause instanceof IllegalArgumentException;
    }

    private static Duration retryWait(OutboxRow row) {
        Duration wait = Duration.ofSeconds(1L << Math.min(row.attempts(), 16));
        return wait.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : wait;
    }

    private static void refuse(Connection connection, OutboxRow row, Throwable cause, Instant now)
            throws SQLException {
        OutboxRows.refused(connection, row.id(), cause.getMessage() == null ? cause.toString() : cause.getMessage(),
                now.plus(retryWait(row)));
    }

    private void reportRefusal(OutboxRow row, Throwable cause) {
        refusals.incrementAndGet();
        listener.refused(row.topic(), row.key(), String.valueOf(cause.getMessage()));
        if (row.attempts() == 0) {
            log.warn("Redis refused the outbox's send of '{}' to {} ({}); it stays in the outbox and is tried again"
                    + " in {}, then less and less often", row.key(), row.topic(), cause.getMessage(), retryWait(row));
        }
    }

    private void reportUnreadable(OutboxRows.Unreadable row) {
        refusals.incrementAndGet();
        log.warn("the outbox's row {} cannot be relayed: {}; it stays in the outbox, is tried again in {}, and the"
                + " rows after it go on", row.id(), row.error(), MAX_RETRY);
    }

    private void countIfDue() throws SQLException {
        long now = System.nanoTime();
        if (lastCountNanos != 0 && now - lastCountNanos < COUNT_EVERY.toNanos()) {
            return;
        }
        lastCountNanos = now;
        try (Connection connection = dataSource.getConnection()) {
            backlog = OutboxRows.backlog(connection);
        }
    }

    private void trouble(String what, Exception e) {
        if (down.isEmpty()) {
            down = what;
            downSinceNanos = System.nanoTime();
            log.warn("the outbox relay cannot reach {}: {}; nothing is lost, the sends stay in the outbox, and it"
                    + " tries again with a backoff of up to {}", what, e.toString(), MAX_BACKOFF);
        }
    }

    private void recovered() {
        backoff = Duration.ofMillis(100);
        if (!down.isEmpty()) {
            log.info("the outbox relay reaches {} again after {} s, and relays on", down,
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - downSinceNanos));
            down = "";
        }
    }

    private static void pause(Duration duration, AtomicBoolean stopped) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped.set(true);
        }
    }
}
