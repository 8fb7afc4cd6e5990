package dev.rmq.journal.jdbc;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.events.RmqEvent;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/** What a consumer's event changes in the journal: the rows it becomes, none for an event the journal ignores. */
final class ConsumerRows {

    private ConsumerRows() {
    }

    static List<Row.Change> of(RmqEvent event) {
        List<Row.Change> rows = new ArrayList<>(1);
        if (event instanceof RmqEvent.Delivered delivered) {
            rows.add(new Row.Change(delivered.topic(), delivered.key(), JournalState.DELIVERED, delivered.attempt(),
                    null, null, false, delivered.atMostOnce(), delivered.time(), delivered.worker(),
                    delivered.atMostOnce() ? "at most once: it left Redis as it was taken" : null));
        } else if (event instanceof RmqEvent.Acknowledged acknowledged) {
            JournalState state = stateOf(acknowledged.outcome());
            if (state != null) {
                String detail = acknowledged.outcome() == AckOutcome.MERGED ? "a newer send of its key waits"
                        : acknowledged.reason().isEmpty() ? null : acknowledged.reason();
                rows.add(new Row.Change(acknowledged.topic(), acknowledged.key(), state, null, null, null, false,
                        state.finished(), acknowledged.time(), acknowledged.worker(), detail));
            }
        } else if (event instanceof RmqEvent.LeasesRecovered recovered) {
            for (RmqEvent.RecoveredLease lease : recovered.leases()) {
                Row.Change change = recoveryOf(recovered, lease);
                if (change != null) {
                    rows.add(change);
                }
            }
        }
        return rows;
    }

    /**
     * What a lease recovery did to the key's message in flight (its oldest open one); null for nothing. A newer
     * send that took its place ends it, as a merge does, and that send's own row then comes first.
     */
    private static Row.@Nullable Change recoveryOf(RmqEvent.LeasesRecovered event, RmqEvent.RecoveredLease lease) {
        JournalState state = switch (lease.outcome()) {
            case RETRY -> JournalState.RETRIED;
            case DEAD -> JournalState.DEAD;
            case EXPIRED -> JournalState.EXPIRED;
            case MERGED -> JournalState.MERGED;
            default -> null;
        };
        if (state == null) {
            return null;
        }
        boolean replaced = lease.outcome() == AckOutcome.MERGED;
        return new Row.Change(event.topic(), lease.key(), state, null, null, null, false, replaced || state.finished(),
                event.time(), event.worker(), replaced
                        ? "its lease ran out while a newer send of its key waited, which takes its place"
                        : "its lease ran out before the consumer acknowledged it");
    }

    /** The journal's state after an acknowledgement; null for one that changed nothing in Redis. */
    private static @Nullable JournalState stateOf(AckOutcome outcome) {
        return switch (outcome) {
            case COMMITTED, MERGED -> JournalState.ACKED;
            case RETRY -> JournalState.RETRIED;
            case DEAD -> JournalState.DEAD;
            case EXPIRED -> JournalState.EXPIRED;
            case RELEASED -> JournalState.RELEASED;
            // a cancel in flight is journaled by the producer that made it
            case STALE, GONE, CANCELLED -> null;
        };
    }
}
