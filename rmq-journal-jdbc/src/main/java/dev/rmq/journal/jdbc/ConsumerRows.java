package dev.rmq.journal.jdbc;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.events.RmqEvent;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a consumer's event changes in the journal: the rows it becomes, none for an event the journal ignores. A
 * delivery names the send it carries; its ending does not, so the send of each delivery in flight in this process
 * is kept here, by topic, key and worker, from the delivery to its ending, and the ending's row names it too.
 * Called from rmq's threads concurrently; a worker's events of one key come in order.
 */
final class ConsumerRows {

    /**
     * The most deliveries whose send is kept: a process holds far fewer in flight. Beyond it (endings lost in numbers)
     * the map starts again, and an ending that finds no send is matched to its message by order, as one without.
     */
    private static final int MAX_IN_FLIGHT = 100_000;

    private final Map<String, String> sendOfDelivery = new ConcurrentHashMap<>();

    List<Row.Change> of(RmqEvent event) {
        List<Row.Change> rows = new ArrayList<>(1);
        if (event instanceof RmqEvent.Delivered delivered) {
            String sendId = delivered.sendId();
            if (sendId != null && !delivered.atMostOnce()) {
                if (sendOfDelivery.size() >= MAX_IN_FLIGHT) {
                    sendOfDelivery.clear();
                }
                sendOfDelivery.put(delivery(delivered.topic(), delivered.key(), delivered.worker()), sendId);
            }
            rows.add(new Row.Change(delivered.topic(), delivered.key(), JournalState.DELIVERED, delivered.attempt(),
                    null, null, false, delivered.atMostOnce(), delivered.time(), delivered.worker(),
                    delivered.atMostOnce() ? "at most once: it left Redis as it was taken" : null, sendId));
        } else if (event instanceof RmqEvent.Acknowledged acknowledged) {
            JournalState state = stateOf(acknowledged.outcome());
            // every ending ends the delivery, a refused one too (its lease was lost)
            String sendId = sendOfDelivery.remove(delivery(acknowledged.topic(), acknowledged.key(),
                    acknowledged.worker()));
            if (state != null) {
                String detail = acknowledged.outcome() == AckOutcome.MERGED ? "a newer send of its key waits"
                        : acknowledged.reason().isEmpty() ? null : acknowledged.reason();
                rows.add(new Row.Change(acknowledged.topic(), acknowledged.key(), state, null, null, null, false,
                        state.finished(), acknowledged.time(), acknowledged.worker(), detail, sendId));
            }
        } else if (event instanceof RmqEvent.AckFailed failed) {
            // their leases recover them, in a poll that may be another process's
            failed.keys().forEach(key -> sendOfDelivery.remove(delivery(failed.topic(), key, failed.worker())));
        } else if (event instanceof RmqEvent.LeasesRecovered recovered) {
            for (RmqEvent.RecoveredLease lease : recovered.leases()) {
                Row.Change change = recoveryOf(recovered, lease,
                        sendOfDelivery.remove(delivery(recovered.topic(), lease.key(), recovered.worker())));
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
    private static Row.@Nullable Change recoveryOf(RmqEvent.LeasesRecovered event, RmqEvent.RecoveredLease lease,
                                                   @Nullable String sendId) {
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
                        : "its lease ran out before the consumer acknowledged it", sendId);
    }

    /**
     * A delivery of the key by the worker. A recovery names the poll's worker, which recovers its own leases too (a
     * worker that lost Redis a while); another worker's are matched by order.
     */
    private static String delivery(String topic, String key, String worker) {
        return topic + '\n' + key + '\n' + worker;
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
