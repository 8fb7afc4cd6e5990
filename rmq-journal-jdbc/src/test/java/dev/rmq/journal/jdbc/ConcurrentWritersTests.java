package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications' journal writers that change one message at once, each in its own transaction: one that finished
 * the message first wins, and the other's changes are placed again rather than reopening it. And a consumer's writer
 * behind a producer's: its rows go to the message they are about, although a newer send superseded it meanwhile.
 */
class ConcurrentWritersTests extends JournalTestBase {

    private static final String KEY = "raced";

    private final RowWriter writer = new RowWriter(Dialect.POSTGRESQL, "test-host");

    @Test
    void aMessageAnotherWriterFinishedMeanwhileIsNotReopenedAndTheLateChangesArePlacedAgain() throws Exception {
        Instant sent = Instant.now().minusSeconds(1);
        long id = firstMessage(sent);

        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            // the first application's writer finishes the message, and has not committed yet
            assertThat(writer.write(first, List.of(change(JournalState.DELIVERED, 1, sent.plusMillis(10)),
                    change(JournalState.ACKED, null, sent.plusMillis(20))))).isEmpty();
            // the second reads it as still open, and waits for the first's lock to change it
            CompletableFuture<List<Row.Change>> late = writeAndCommitAsync(second, List.of(
                    change(JournalState.DELIVERED, 1, sent.plusMillis(500)),
                    change(JournalState.RETRIED, null, sent.plusMillis(600))));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnALock() > 0);
            first.commit();

            List<Row.Change> unplaced = late.get(10, TimeUnit.SECONDS);
            assertThat(unplaced).as("the late changes, to be placed again").hasSize(2);
        }
        MessageRow row = message(PRIORITY, KEY);
        assertThat(row.state()).isEqualTo("acked");
        assertThat(row.finished()).isTrue();
        assertThat(transitions(id)).containsExactly("sent", "delivered", "acked");
    }

    @Test
    void aConsumersLateRowsGoToTheMessageANewerSendSupersededNotToTheNewerOne() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        // the producer's rows: a message, then, once it was consumed (Redis held nothing of the key), a newer send,
        // which supersedes it as the consumer's rows of its delivery have not been written yet
        long older = firstMessage(sent);
        long newer = sentAgain(sent.plusSeconds(2), false);
        assertThat(transitions(older)).containsExactly("sent", "merged");

        // then the consumer's rows of the older message's delivery, which happened before the newer send
        assertThat(write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(1)),
                change(JournalState.ACKED, null, sent.plusMillis(1010))))).isEmpty();

        assertThat(transitions(older)).containsExactly("sent", "merged", "delivered", "acked");
        assertThat(transitions(newer)).containsExactly("sent");
        MessageRow row = message(PRIORITY, KEY);
        assertThat(row.id()).isEqualTo(newer);
        assertThat(row.finished()).as("the newer message, still to be delivered, stays open for a restore").isFalse();

        // a delivery after the newer send is the newer message's
        write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(3))));
        assertThat(transitions(newer)).containsExactly("sent", "delivered");
        assertThat(transitions(older)).hasSize(4);
    }

    @Test
    void rowsOfADeliveryWhoseSendHasNoRowYetWaitForItRatherThanGoToAnOlderMessage() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        long older = firstMessage(sent);
        write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(1)),
                change(JournalState.ACKED, null, sent.plusMillis(1100))));
        // a send that merged into it before its delivery, whose row came after the consumer's: the finished message
        // takes the merge
        write(List.of(send(sent.plusMillis(500), true)));
        assertThat(transitions(older)).containsExactly("sent", "delivered", "acked", "merged");

        // the delivery of a newer send whose row the producer's journal has not written yet
        List<Row.Change> unplaced = write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(3)),
                change(JournalState.ACKED, null, sent.plusMillis(3100))));

        assertThat(unplaced).as("waiting for the newer send's row").hasSize(2);
        assertThat(transitions(older)).hasSize(4);
    }

    @Test
    void aDeliveredMessageEndsWhenRedisTakesANewerSendAsNewThoughItsConsumersLastRowsNeverCame() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        // its consumer wrote the delivery, acknowledged it, and was killed before its journal wrote the ack; Redis
        // took the next send of the key as a new message, behind no delivery: the older one had ended
        long[] ids = deliveredThenSentAgain(sent, sent.plusSeconds(2), false);
        assertThat(transitions(ids[0])).containsExactly("sent", "delivered", "merged");

        // the newer message's delivery is its own, not the older one's, and its ack leaves nothing open to restore
        deliveredAndAcked(sent.plusSeconds(3));
        assertThat(transitions(ids[1])).containsExactly("sent", "delivered", "acked");
        assertThat(transitions(ids[0])).hasSize(3);
        assertNothingOpen();
    }

    @Test
    void aDeliveryOfTheMessageBehindADeliveryWhoseEndWasNeverWrittenEndsTheOlderOne() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        long[] ids = deliveredThenSentAgain(sent, sent.plusMillis(1500), true);
        assertThat(transitions(ids[0])).as("in flight, the newer one behind it").containsExactly("sent", "delivered");

        // the older one's consumer was killed before its journal wrote the ack; the newer one is delivered as a first
        // attempt, which the older one, delivered once already, cannot be
        deliveredAndAcked(sent.plusSeconds(3));
        assertThat(transitions(ids[0])).containsExactly("sent", "delivered", "merged");
        assertThat(transitions(ids[1])).containsExactly("sent", "delivered", "acked");
        assertNothingOpen();
    }

    @Test
    void anEndTheWriterInferredIsDroppedWhenAnotherWriterFinishedTheMessageMeanwhile() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        long[] ids = deliveredThenSentAgain(sent, sent.plusMillis(1500), true);
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            // another application's writer has the older message's late ack, and has not committed yet
            assertThat(writer.write(first, List.of(change(JournalState.ACKED, null, sent.plusSeconds(2))))).isEmpty();
            // this one infers from the newer message's delivery that the older one ended, and waits for its lock
            CompletableFuture<List<Row.Change>> delivery = writeAndCommitAsync(second,
                    List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(3))));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnALock() > 0);
            first.commit();
            assertThat(delivery.get(10, TimeUnit.SECONDS)).as("nothing to place again on the newer message").isEmpty();
        }
        assertThat(transitions(ids[0])).containsExactly("sent", "delivered", "acked");
        assertThat(transitions(ids[1])).containsExactly("sent", "delivered");
        assertThat(message(PRIORITY, KEY).finished()).isFalse();
    }

    @Test
    void twoDeliveriesOfAKeyInOneBatchAreTwoMessagesWhenTheSecondIsNoLaterAttempt() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        long older = firstMessage(sent);
        long newer = sentAgain(sent.plusMillis(500), true);

        write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(1)),
                change(JournalState.DELIVERED, 1, sent.plusSeconds(3)),
                change(JournalState.ACKED, null, sent.plusMillis(3100))));
        assertThat(transitions(older)).containsExactly("sent", "delivered", "merged");
        assertThat(transitions(newer)).containsExactly("sent", "delivered", "acked");
    }

    @Test
    void aRedeliveryWhoseRetryWasNeverWrittenStaysWithItsMessage() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        long[] ids = deliveredThenSentAgain(sent, sent.plusMillis(1500), true);

        // its lease ran out and the recovery's row was lost: the next delivery is its second attempt
        write(List.of(change(JournalState.DELIVERED, 2, sent.plusSeconds(3))));
        assertThat(transitions(ids[0])).containsExactly("sent", "delivered", "delivered");
        assertThat(transitions(ids[1])).containsExactly("sent");
        // and a delivery that began before the newer message was sent cannot be of it
        write(List.of(change(JournalState.DELIVERED, 2, sent.plusMillis(1200))));
        assertThat(transitions(ids[1])).containsExactly("sent");
    }

    @Test
    void aDeliveryWhoseSendsRowCommitsAfterItsOwnRowsWaitsForItRatherThanFinishAnOlderMessage() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        open(journal -> { });
        // the key's first message, delivered; its consumer was killed before its journal wrote the ack
        write(List.of(named(sent, "first", false), named(JournalState.DELIVERED, 1, sent.plusSeconds(1), "first")));
        long older = message(PRIORITY, KEY).id();

        // the next send's consumer writes its rows before the send's synchronous row has committed
        List<Row.Change> early = write(List.of(named(JournalState.DELIVERED, 1, sent.plusSeconds(3), "second"),
                named(JournalState.ACKED, null, sent.plusMillis(3100), "second")));
        assertThat(early).as("waiting for the send they name").hasSize(2);
        assertThat(transitions(older)).containsExactly("sent", "delivered");

        // the send's row, then the waiting rows again, as the writer tries them
        List<Row> next = new ArrayList<>(List.of(named(sent.plusMillis(2500), "second", false)));
        next.addAll(early);
        assertThat(write(next)).isEmpty();
        long newer = message(PRIORITY, KEY).id();
        assertThat(transitions(newer)).containsExactly("sent", "delivered", "acked");
        assertThat(transitions(older)).containsExactly("sent", "delivered", "merged");
        assertNothingOpen();
    }

    @Test
    void aDeliveryNamingTheNewerOfTwoOpenMessagesGoesToItAndEndsTheOlderOne() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        open(journal -> { });
        // in flight, and a second send behind it; the first one's ack never came, and the second one's delivery is
        // a third attempt (it was retried in a process whose rows are lost), which order alone would give the first
        write(List.of(named(sent, "first", false), named(JournalState.DELIVERED, 1, sent.plusSeconds(1), "first"),
                named(sent.plusMillis(1500), "second", true)));
        long newer = message(PRIORITY, KEY).id();
        write(List.of(named(JournalState.DELIVERED, 3, sent.plusSeconds(3), "second"),
                named(JournalState.ACKED, null, sent.plusMillis(3100), "second")));

        assertThat(transitions(newer)).containsExactly("sent", "delivered", "acked");
        assertThat(messages(PRIORITY).get(0).state()).isEqualTo("merged");
        assertNothingOpen();
    }

    @Test
    void aMergeGivesTheMessageTheMergingSendsIdWhichItsDeliveryNames() throws Exception {
        Instant sent = Instant.now().minusSeconds(10);
        open(journal -> { });
        write(List.of(named(sent, "first", false)));
        write(List.of(prioritySend(KEY, sent.plusMillis(200), true, false, "merging")));
        assertThat(count("SELECT COUNT(*) FROM rmq_messages WHERE send_id = 'merging'")).isOne();

        write(List.of(named(JournalState.DELIVERED, 1, sent.plusSeconds(1), "merging")));
        assertThat(message(PRIORITY, KEY).state()).isEqualTo("delivered");
        // a change naming a send that the merge replaced waits, as one of a send still to come would
        assertThat(write(List.of(named(JournalState.ACKED, null, sent.plusSeconds(2), "first")))).hasSize(1);
    }

    /**
     * The key's first message, sent at {@code sent} and delivered a second later (the rows of that delivery's end
     * never come), then a newer send of the key at {@code again}; returns the two messages' ids.
     */
    private long[] deliveredThenSentAgain(Instant sent, Instant again, boolean behindDelivery) throws SQLException {
        long older = firstMessage(sent);
        write(List.of(change(JournalState.DELIVERED, 1, sent.plusSeconds(1))));
        return new long[] {older, sentAgain(again, behindDelivery)};
    }

    /** Writes a send of the key at {@code at} that Redis took as a new message; returns its id. */
    private long sentAgain(Instant at, boolean behindDelivery) throws SQLException {
        write(List.of(send(at, false, behindDelivery)));
        return message(PRIORITY, KEY).id();
    }

    /** A first delivery of the key at {@code at}, acknowledged 100 ms later. */
    private void deliveredAndAcked(Instant at) throws SQLException {
        write(List.of(change(JournalState.DELIVERED, 1, at), change(JournalState.ACKED, null, at.plusMillis(100))));
    }

    private void assertNothingOpen() throws SQLException {
        assertThat(count("SELECT COUNT(*) FROM rmq_messages WHERE finished = FALSE")).isZero();
    }

    /** Opens the journal and writes the key's first message, sent at {@code sent}; returns its id. */
    private long firstMessage(Instant sent) throws SQLException {
        open(journal -> { });
        write(List.of(send(sent)));
        return message(PRIORITY, KEY).id();
    }

    private static Row.Sent send(Instant at) {
        return send(at, false);
    }

    private static Row.Sent send(Instant at, boolean merged) {
        return send(at, merged, false);
    }

    private static Row.Sent send(Instant at, boolean merged, boolean behindDelivery) {
        return prioritySend(KEY, at, merged, behindDelivery);
    }

    /** Writes the rows on {@code connection} and commits, on another thread; completes with the unplaced changes. */
    private CompletableFuture<List<Row.Change>> writeAndCommitAsync(Connection connection, List<Row> rows) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                List<Row.Change> unplaced = writer.write(connection, rows);
                connection.commit();
                return unplaced;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private List<Row.Change> write(List<Row> rows) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            List<Row.Change> unplaced = writer.write(connection, rows);
            connection.commit();
            return unplaced;
        }
    }

    /** A send of the key with its send id; {@code behindDelivery} as Redis answered. */
    private static Row.Sent named(Instant at, String sendId, boolean behindDelivery) {
        return prioritySend(KEY, at, false, behindDelivery, sendId);
    }

    /** A consumer's change of the key whose delivery carried the send {@code sendId} (null: one that names none). */
    private static Row.Change named(JournalState state, Integer attempt, Instant at, String sendId) {
        return new Row.Change(PRIORITY, KEY, state, attempt, null, null, false, state.finished(), at, "w-1", null,
                sendId);
    }

    private static Row.Change change(JournalState state, Integer attempt, Instant at) {
        return named(state, attempt, at, null);
    }
}
