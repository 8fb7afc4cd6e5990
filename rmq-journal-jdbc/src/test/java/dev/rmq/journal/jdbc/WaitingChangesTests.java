package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How long a change that found no message waits, and what it becomes when its wait is over. */
class WaitingChangesTests {

    /** Changes that wait no time at all, so that every wait is over at the next write. */
    private final WaitingChanges waiting = new WaitingChanges(0);

    @Test
    void aChangeThatNamesASendWhoseRowNeverCameIsMatchedByOrderOnceItsWaitIsOverThenDropped() {
        Row.Change named = new Row.Change("t", "k", JournalState.ACKED, null, null, null, false, true, Instant.now(),
                "w-1", null, "never-journaled");

        waiting.replaceWith(List.of(named));
        List<Row> next = new ArrayList<>();
        assertThat(waiting.addTo(next)).isOne();
        Row.Change byOrder = (Row.Change) next.get(0);
        assertThat(byOrder.sendId()).as("matched by order from now on").isNull();
        assertThat(byOrder).isEqualTo(named.withoutSendId());
        assertThat(waiting.unmatched()).isZero();

        // found no message by order either: after its second wait it is dropped and counted
        waiting.replaceWith(List.of(byOrder));
        assertThat(waiting.isEmpty()).isTrue();
        assertThat(waiting.unmatched()).isOne();
    }

    @Test
    void aChangeThatNamesNoSendIsDroppedOnceItsWaitIsOver() {
        Row.Change unnamed = new Row.Change("t", "k", JournalState.ACKED, null, null, null, false, true, Instant.now(),
                "w-1", null);

        waiting.replaceWith(List.of(unnamed));

        assertThat(waiting.isEmpty()).isTrue();
        assertThat(waiting.unmatched()).isOne();
    }
}
