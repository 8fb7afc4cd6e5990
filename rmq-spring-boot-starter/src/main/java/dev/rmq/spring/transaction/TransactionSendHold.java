package dev.rmq.spring.transaction;

import dev.rmq.producer.SendHold;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Holds the producer's sends made inside a Spring-managed transaction until it ends: sent in order after it
 * commits, dropped when it rolls back. One synchronization per transaction holds them all; a transaction suspended
 * for another (REQUIRES_NEW) keeps its own, and the inner one's sends go when the inner one commits.
 *
 * <p>After the commit, the held sends go out pipelined, and the committing thread waits for Redis's answers (at most
 * the wait it is given), so that what runs after the transaction finds the messages queued. A send that fails then
 * is logged by the producer: the transaction has committed, and the message is not queued. A transaction whose
 * outcome is unknown (a commit that failed part-way) drops its sends, with a WARN. A rollback to a savepoint
 * (NESTED) does not drop the sends made since it: only the end of the whole transaction decides.
 */
public final class TransactionSendHold implements SendHold {

    private static final Logger log = LoggerFactory.getLogger(TransactionSendHold.class);

    private final Duration wait;

    /**
     * @param wait the longest the committing thread waits for Redis's answers to the held sends (it still holds the
     *             transaction's connection meanwhile); they go on in the background after it. Zero waits not at all
     */
    public TransactionSendHold(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("the wait for held sends must be zero or positive, was " + wait);
        }
        this.wait = wait;
    }

    @Override
    public boolean active() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    @Override
    public boolean hold(Supplier<? extends CompletionStage<?>> send, Runnable drop) {
        if (!active()) {
            return false;
        }
        Held held = (Held) TransactionSynchronizationManager.getResource(this);
        if (held == null) {
            held = new Held(this, wait);
            TransactionSynchronizationManager.bindResource(this, held);
            TransactionSynchronizationManager.registerSynchronization(held);
        }
        held.add(send, drop);
        return true;
    }

    /** The sends of one transaction, bound to its thread under the hold's own key while it runs. */
    private static final class Held implements TransactionSynchronization {

        private final Object key;
        private final Duration wait;
        private final List<Supplier<? extends CompletionStage<?>>> sends = new ArrayList<>();
        private final List<Runnable> drops = new ArrayList<>();

        Held(Object key, Duration wait) {
            this.key = key;
            this.wait = wait;
        }

        void add(Supplier<? extends CompletionStage<?>> send, Runnable drop) {
            sends.add(send);
            drops.add(drop);
        }

        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResource(key);
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(key, this);
        }

        @Override
        public void afterCompletion(int status) {
            TransactionSynchronizationManager.unbindResourceIfPossible(key);
            if (status == STATUS_COMMITTED) {
                sendAll();
                return;
            }
            if (status == STATUS_UNKNOWN) {
                log.warn("a transaction ended with an unknown outcome: its {} held send(s) are dropped, since what"
                        + " they announce may not have happened", sends.size());
            }
            for (Runnable drop : drops) {
                drop.run();
            }
        }

        private void sendAll() {
            List<CompletableFuture<?>> sent = new ArrayList<>(sends.size());
            for (Supplier<? extends CompletionStage<?>> send : sends) {
                try {
                    sent.add(send.get().toCompletableFuture());
                } catch (RuntimeException e) {
                    // one failure must not keep the others from going out
                    log.warn("a send held until its transaction committed could not start after the commit: {}",
                            e.toString());
                }
            }
            if (wait.isZero()) {
                return;
            }
            try {
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                        .get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                // each failure was logged with its message by the producer
            } catch (TimeoutException e) {
                log.warn("{} send(s) held until their transaction committed had no answer from Redis within {};"
                        + " they go on in the background", sent.stream().filter(f -> !f.isDone()).count(), wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
