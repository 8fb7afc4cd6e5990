package dev.rmq.journal.jdbc;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The journal's one writer thread: takes rows from a bounded buffer and writes them in batches, one transaction
 * each. A batch that fails is written again, after a growing pause, until it succeeds or the journal closes: rows are
 * not dropped because the database is away, only when the buffer is full and the policy says so.
 */
final class JournalWriter implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(JournalWriter.class);

    private final DataSource dataSource;
    private final RowWriter rows;
    private final Retention retention;
    private static final CompletableFuture<Void> ACCEPTED = CompletableFuture.completedFuture(null);

    private final BlockingQueue<Row> buffer;
    private final BlockingQueue<Waiting> overflow;
    private final int batchSize;
    private final WhenUnavailable whenUnavailable;
    private final Duration blockTimeout;
    private final AtomicLong written = new AtomicLong();
    private final WriterTrouble trouble;
    private final WaitingChanges deferred = new WaitingChanges();
    private final Thread thread;
    private final Thread overflowThread;
    private volatile boolean closing;
    private volatile @Nullable Instant writingSince;

    JournalWriter(DataSource dataSource, RowWriter rows, Retention retention, int capacity, int batchSize,
                  WhenUnavailable whenUnavailable, Duration blockTimeout) {
        this.dataSource = dataSource;
        this.rows = rows;
        this.retention = retention;
        this.buffer = new ArrayBlockingQueue<>(capacity);
        this.overflow = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.whenUnavailable = whenUnavailable;
        this.trouble = new WriterTrouble(whenUnavailable);
        this.blockTimeout = blockTimeout;
        this.thread = new Thread(this, "rmq-journal-writer");
        this.thread.setDaemon(true);
        this.overflowThread = new Thread(this::moveOverflow, "rmq-journal-overflow");
        this.overflowThread.setDaemon(true);
    }

    void start() {
        thread.start();
        overflowThread.start();
    }

    /**
     * Queues a row, never blocking the caller: rmq calls this on Redis's I/O threads too. A row that finds the buffer
     * full (or rows before it still waiting for room) is dropped and counted under {@link WhenUnavailable#CONTINUE},
     * unless somebody waits for it; otherwise it waits in an overflow queue, in order, until the buffer has room or
     * the block timeout has passed, and the returned stage says which.
     *
     * @return completes when the row is in the buffer; fails with {@link JournalUnavailableException} when it found
     *         no room within the block timeout (a send then fails; an event is dropped and counted)
     */
    CompletableFuture<Void> add(Row row) {
        if (closing) {
            return closed();
        }
        synchronized (this) {
            if (overflow.isEmpty() && buffer.offer(row)) {
                return ACCEPTED;
            }
            boolean waits = row.done() != null || whenUnavailable == WhenUnavailable.BLOCK;
            if (waits) {
                Waiting waiting = new Waiting(row, System.nanoTime() + blockTimeout.toNanos(), new CompletableFuture<>());
                if (overflow.offer(waiting)) {
                    notifyAll();
                    return waiting.accepted();
                }
            }
        }
        trouble.dropped(buffer.size());
        // under CONTINUE a send whose row is dropped goes on; one that waits fails
        return row.done() == null && whenUnavailable == WhenUnavailable.CONTINUE ? ACCEPTED
                : CompletableFuture.failedFuture(full());
    }

    private static CompletableFuture<Void> closed() {
        return CompletableFuture.failedFuture(new JournalUnavailableException("the journal is closed; it takes no more"
                + " rows"));
    }

    private JournalUnavailableException full() {
        return new JournalUnavailableException("the journal's buffer stayed full for " + blockTimeout.toMillis()
                + " ms (its database is out of reach or too slow): Redis holds the message, but its journal row is not"
                + " written, so a restore would not bring it back");
    }

    /** A row waiting for room in the buffer, until its deadline. */
    private record Waiting(Row row, long deadlineNanos, CompletableFuture<Void> accepted) {
    }

    /**
     * The overflow thread: moves waiting rows into the buffer in order, each until its own deadline. The row it
     * moves stays at the head of the overflow until it is in the buffer, so that {@link #add} sends every row
     * behind it meanwhile.
     */
    private void moveOverflow() {
        while (!closing || !overflow.isEmpty()) {
            try {
                Waiting waiting;
                synchronized (this) {
                    waiting = overflow.peek();
                    if (waiting == null) {
                        wait(100);
                        continue;
                    }
                }
                long left = waiting.deadlineNanos() - System.nanoTime();
                boolean moved = left > 0 && buffer.offer(waiting.row(), left, TimeUnit.NANOSECONDS);
                synchronized (this) {
                    overflow.remove();
                }
                if (moved) {
                    waiting.accepted().complete(null);
                } else {
                    trouble.dropped(buffer.size());
                    waiting.accepted().completeExceptionally(full());
                }
            } catch (InterruptedException e) {
                overflow.forEach(waiting -> waiting.accepted().completeExceptionally(full()));
                overflow.clear();
                return;
            }
        }
    }

    /**
     * Queues a mark that completes when every row queued before it is written. The caller waits for room, up to
     * {@code timeout}: a flush is called on an application's thread, never on Redis's.
     */
    void flush(Row.Flush mark, Duration timeout) throws InterruptedException {
        if (closing) {
            throw new JournalUnavailableException("the journal is closed; it takes no more rows");
        }
        enqueueWaiting(mark, timeout).whenComplete((room, error) -> {
            if (error != null) {
                mark.done().completeExceptionally(error);
            }
        });
    }

    /**
     * Queues a row behind every row before it, the caller waiting for room in the overflow up to {@code timeout}, so
     * that no row is dropped: for rows that must be written, on an application's thread, never on Redis's.
     *
     * @return completes when the row is in the buffer; fails with {@link JournalUnavailableException} when the
     *         journal is closed or found no room within the timeout
     */
    CompletableFuture<Void> enqueueWaiting(Row row, Duration timeout) throws InterruptedException {
        if (closing) {
            return closed();
        }
        synchronized (this) {
            if (overflow.isEmpty() && buffer.offer(row)) {
                return ACCEPTED;
            }
        }
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        Waiting waiting = new Waiting(row, System.nanoTime() + timeout.toNanos(), accepted);
        boolean queued = overflow.offer(waiting, timeout.toNanos(), TimeUnit.NANOSECONDS);
        synchronized (this) {
            notifyAll();
        }
        if (!queued) {
            return CompletableFuture.failedFuture(new JournalUnavailableException("the journal's buffer and overflow"
                    + " stayed full for " + timeout.toMillis() + " ms"));
        }
        return accepted;
    }

    @Override
    public void run() {
        List<Row> batch = new ArrayList<>(batchSize);
        // on close: until the overflow has moved its last rows in and the buffer is written
        while (!closing || !buffer.isEmpty() || overflowThread.isAlive()) {
            try {
                Row first = buffer.poll(deferred.isEmpty() ? retention.idleWaitMillis() : WaitingChanges.RETRY_MILLIS,
                        TimeUnit.MILLISECONDS);
                if (first == null && deferred.isEmpty()) {
                    prune();
                    continue;
                }
                // changes that waited for their message go first: they happened before the rows behind them
                boolean retry = deferred.due();
                int retried = retry ? deferred.takeInto(batch) : 0;
                if (first != null) {
                    batch.add(first);
                    buffer.drainTo(batch, batchSize - 1);
                }
                int held = retry ? 0 : deferred.holdBack(batch);
                written.addAndGet(held);
                if (batch.isEmpty()) {
                    continue;
                }
                writingSince = batch.get(0).time();
                if (writeUntilDone(batch)) {
                    placeWaitingBeforeFlush(batch);
                    written.addAndGet(batch.stream().skip(retried).filter(row -> !(row instanceof Row.Flush)).count());
                    batch.forEach(row -> complete(row, null));
                } else {
                    batch.forEach(row -> complete(row, new JournalUnavailableException("the journal closed before its"
                            + " database took this row")));
                }
                batch.clear();
                writingSince = null;
                prune();
            } catch (InterruptedException e) {
                closing = true;
                batch.forEach(row -> complete(row, new JournalUnavailableException("the journal closed before its"
                        + " database took this row")));
                batch.clear();
            }
        }
        if (!deferred.isEmpty()) {
            log.info("the journal closes with {} changes still waiting for their message's row; they are dropped",
                    deferred.size());
        }
    }

    /**
     * A flush waits for the changes that waited for their message's row, which this batch may have brought: a
     * consumer's delivery can be heard of before the send that made it, whose row is queued once Redis has answered.
     * They are tried once more now, so that what the flush's caller then reads holds them; those that still find no
     * row wait on (and are lost if the journal closes meanwhile, as waiting changes are).
     */
    private void placeWaitingBeforeFlush(List<Row> batch) throws InterruptedException {
        if (deferred.isEmpty() || batch.stream().noneMatch(Row.Flush.class::isInstance)) {
            return;
        }
        List<Row> waited = new ArrayList<>();
        deferred.takeInto(waited);
        writeUntilDone(waited);
    }

    private static void complete(Row row, @Nullable Throwable error) {
        CompletableFuture<Void> done = row.done();
        if (done == null) {
            return;
        }
        if (error == null) {
            done.complete(null);
        } else {
            done.completeExceptionally(error);
        }
    }

    /** Writes the batch, again after each failure; false when the journal closed before it could. */
    private boolean writeUntilDone(List<Row> batch) throws InterruptedException {
        long pauseMs = 100;
        while (true) {
            // a conflict with another writer (another process's journal, a restore) goes again inside run()
            try (Connection connection = dataSource.getConnection()) {
                List<Row.Change> unplaced = Transactions.run(connection, c -> rows.write(c, batch));
                trouble.recovered();
                deferred.add(unplaced);
                return true;
            } catch (SQLException | RuntimeException e) {
                if (Transactions.isRefused(e)) {
                    // the database refuses a row of this batch for good (a value it cannot store): writing the
                    // batch again would stop the journal, so the rows are written apart and the bad ones dropped
                    deferred.add(writeApart(batch));
                    return true;
                }
                trouble.failed(e, batch.size(), buffer.size());
                if (closing) {
                    log.warn("the journal closes with {} rows its database did not take; they are lost",
                            batch.size() + buffer.size());
                    buffer.clear();
                    return false;
                }
                Thread.sleep(pauseMs);
                pauseMs = Math.min(pauseMs * 2, 2_000);
            }
        }
    }

    /**
     * Writes the rows of a batch the database refused in halves, down to single rows, and drops each row it still
     * refuses, with a warning that names it and a count in the gap. A row that fails otherwise (the database went
     * away meanwhile) is written as a batch is, again until it is taken or refused.
     */
    private List<Row.Change> writeApart(List<Row> batch) throws InterruptedException {
        if (batch.size() > 1) {
            int half = batch.size() / 2;
            List<Row.Change> unplaced = new ArrayList<>(writeApart(batch.subList(0, half)));
            unplaced.addAll(writeApart(batch.subList(half, batch.size())));
            return unplaced;
        }
        try (Connection connection = dataSource.getConnection()) {
            return Transactions.run(connection, c -> rows.write(c, batch));
        } catch (SQLException | RuntimeException e) {
            if (!Transactions.isRefused(e)) {
                // it adds what it could not place to the deferred rows itself
                if (!writeUntilDone(batch)) {
                    // the journal closed first: the row is lost, and its sender hears so before the batch completes
                    complete(batch.get(0), new JournalUnavailableException("the journal closed before its database"
                            + " took this row"));
                }
                return List.of();
            }
            Row refused = batch.get(0);
            if (!(refused instanceof Row.Flush)) {
                trouble.refused();
            }
            if (refused.done() != null) {
                refused.done().completeExceptionally(new JournalUnavailableException("the journal's database refuses"
                        + " this row (" + e.getMessage() + "): Redis holds the message, but a restore would not bring"
                        + " it back", e));
            }
            log.warn("the journal's database refuses a row, which is dropped: {}: {}", describe(batch.get(0)),
                    e.toString());
            return List.of();
        }
    }

    private static String describe(Row row) {
        if (row instanceof Row.Sent sent) {
            return "send of " + sent.send().topic() + " \"" + sent.send().key() + "\"";
        }
        if (row instanceof Row.Change change) {
            return change.state().column() + " of " + change.topic() + " \"" + change.key() + "\"";
        }
        return "a flush mark";
    }


    private void prune() {
        if (!trouble.inOutage()) {
            retention.pruneIfDue(dataSource, rows.dialect());
        }
    }

    long pruneNow(Instant before) throws SQLException {
        return retention.pruneNow(dataSource, rows.dialect(), before);
    }

    JournalStats stats() {
        Instant oldest = writingSince;
        if (oldest == null) {
            Row head = buffer.peek();
            oldest = head == null ? null : head.time();
        }
        if (oldest == null) {
            Waiting waiting = overflow.peek();
            oldest = waiting == null ? null : waiting.row().time();
        }
        Duration lag = oldest == null ? Duration.ZERO : Duration.between(oldest, Instant.now());
        return new JournalStats(buffer.size() + overflow.size(), lag.isNegative() ? Duration.ZERO : lag, written.get(),
                trouble.gap(), trouble.failures(), retention.pruned(), deferred.unmatched(), deferred.size());
    }

    /** Writes what is buffered, for up to {@code timeout}, then stops the thread. */
    void close(Duration timeout) {
        closing = true;
        try {
            overflowThread.join(timeout.toMillis());
            if (overflowThread.isAlive()) {
                overflowThread.interrupt();
            }
            thread.join(timeout.toMillis());
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
