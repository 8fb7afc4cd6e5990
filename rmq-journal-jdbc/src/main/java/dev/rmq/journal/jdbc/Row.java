package dev.rmq.journal.jdbc;

import dev.rmq.journal.JournaledSend;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/** What the writer writes: a row of the journal, or a mark that the rows before it are written. */
sealed interface Row {

    /** When it happened; the writer's lag is measured from the oldest. */
    Instant time();

    /** Completed when written, for a synchronous send or a flush; null when nobody waits. */
    @Nullable CompletableFuture<Void> done();

    /** A send Redis added (or merged, {@code send.merged()}): its message row, and its transition. */
    record Sent(JournaledSend send, @Nullable CompletableFuture<Void> done) implements Row {

        @Override
        public Instant time() {
            return send.sentAt();
        }
    }

    /**
     * A change of a key's open message: the oldest (consumers' changes: the message in flight comes first) or the
     * newest (a producer's change: the one waiting).
     *
     * @param attempt  the attempt to record, or null to keep the message's count
     * @param score    a new due time or priority, or null to keep it
     * @param notBefore a priority message's new not-before time (epoch ms), 0 for none, or null to keep it
     * @param finishes whether the message is done with after it: its state says so, or it was delivered at most once
     * @param sendId   a consumer's change: the send its delivery carried, which names the message it goes to; null
     *                 when unknown, and the change goes to the key's oldest open message
     */
    record Change(String topic, String key, JournalState state, @Nullable Integer attempt, @Nullable Long score,
                  @Nullable Long notBefore, boolean newest, boolean finishes, Instant time, String worker,
                  @Nullable String detail, @Nullable String sendId) implements Row {

        /** A change that names no send. */
        Change(String topic, String key, JournalState state, @Nullable Integer attempt, @Nullable Long score,
               @Nullable Long notBefore, boolean newest, boolean finishes, Instant time, String worker,
               @Nullable String detail) {
            this(topic, key, state, attempt, score, notBefore, newest, finishes, time, worker, detail, null);
        }

        /** The same change, matched to its message by order: its send never came, or came without a row. */
        Change withoutSendId() {
            return new Change(topic, key, state, attempt, score, notBefore, newest, finishes, time, worker, detail);
        }

        @Override
        public @Nullable CompletableFuture<Void> done() {
            return null;
        }
    }

    /** Asks to be told when every row before it is written. */
    record Flush(Instant time, CompletableFuture<Void> done) implements Row {
    }
}
