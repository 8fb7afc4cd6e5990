package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** How long a change that found no message waits, how often it is tried again, and what comes behind it. */
class WaitingChangesTests {

    @Test
    void aChangeThatNamesASendWhoseRowNeverCameIsMatchedByOrderOnceItsWaitIsOverThenDropped() {
        // changes that wait no time at all, so that every wait is over at the next write
        WaitingChanges waiting = new WaitingChanges(0);
        Row.Change named = change("k", JournalState.ACKED, "never-journaled");

        waiting.add(List.of(named));
        List<Row> next = new ArrayList<>();
        assertThat(waiting.takeInto(next)).isOne();
        Row.Change byOrder = (Row.Change) next.get(0);
        assertThat(byOrder.sendId()).as("matched by order from now on").isNull();
        assertThat(byOrder).isEqualTo(named.withoutSendId());
        assertThat(waiting.unmatched()).isZero();

        // found no message by order either: after its second wait it is dropped and counted
        waiting.add(List.of(byOrder));
        assertThat(waiting.isEmpty()).isTrue();
        assertThat(waiting.unmatched()).isOne();
    }

    @Test
    void aChangeThatNamesNoSendIsDroppedOnceItsWaitIsOver() {
        WaitingChanges waiting = new WaitingChanges(0);

        waiting.add(List.of(change("k", JournalState.ACKED, null)));

        assertThat(waiting.isEmpty()).isTrue();
        assertThat(waiting.unmatched()).isOne();
    }

    @Test
    void betweenTriesALaterChangeOfAWaitingKeyWaitsBehindItAndOtherRowsAreWritten() {
        WaitingChanges waiting = new WaitingChanges(TimeUnit.SECONDS.toNanos(30));
        Row.Change delivered = change("k", JournalState.DELIVERED, "s-1");
        waiting.add(List.of(delivered));
        assertThat(waiting.due()).as("tried once every retry interval, not with every batch").isFalse();

        Row.Change acked = change("k", JournalState.ACKED, "s-1");
        Row.Change other = change("other", JournalState.DELIVERED, "s-2");
        Row.Sent send = JournalTestBase.prioritySend("k", Instant.now(), false, false, "s-1");
        List<Row> batch = new ArrayList<>(List.of(acked, other, send));
        assertThat(waiting.holdBack(batch)).isOne();
        assertThat(batch).as("the send they wait for goes on").containsExactly(other, send);

        await().atMost(Duration.ofSeconds(5)).until(waiting::due);
        List<Row> next = new ArrayList<>();
        assertThat(waiting.takeInto(next)).isEqualTo(2);
        assertThat(next).as("in the order they happened").containsExactly(delivered, acked);
        assertThat(waiting.due()).isFalse();
    }

    private static Row.Change change(String key, JournalState state, String sendId) {
        return new Row.Change("t", key, state, null, null, null, false, state.finished(), Instant.now(), "w-1", null,
                sendId);
    }
}
