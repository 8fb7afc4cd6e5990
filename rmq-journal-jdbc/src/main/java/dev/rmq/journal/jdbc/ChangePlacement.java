package dev.rmq.journal.jdbc;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which message each change of a run goes to. A consumer's change goes to its key's oldest open message (the one in
 * flight comes before a send behind it), a producer's to the newest; a delivery that cannot be of the oldest ends it
 * and goes to the next (see {@link OpenMessages#endedBefore}); one that happened before that message was sent
 * goes to the key's superseded message it is about (see {@link OpenMessages#supersededFor}), and so do the rest of
 * that delivery's changes in the run. A consumer's change that names its send (see
 * {@link dev.rmq.journal.MessageJournal#SEND_ID_HEADER}) goes to the message that holds that send instead, whatever
 * the order its rows came in; a delivery of it ends the key's older open messages (see
 * {@link OpenMessages#olderThan}). A change whose message has no row yet is left unplaced, and so are the key's later
 * changes, to keep their order.
 *
 * @param placed     changes of open messages
 * @param superseded changes of finished messages: one a newer send of its key superseded, or one that holds the
 *                   send a change names; they join the history only
 */
record ChangePlacement(List<Placed> placed, List<Placed> superseded) {

    /**
     * A change and the message it goes to. An inferred change is the placement's own (see
     * {@link OpenMessages#endedBefore}), about that message only: when another writer has finished the message
     * meanwhile, it is dropped rather than placed again on the key's next open message.
     */
    record Placed(OpenMessages.Open open, Row.Change change, boolean inferred) {

        Placed(OpenMessages.Open open, Row.Change change) {
            this(open, change, false);
        }
    }

    /**
     * Places the changes of {@code run} (all {@link Row.Change}s), adding those without a message to
     * {@code unplaced} and their keys to {@code blocked}.
     */
    static ChangePlacement of(Connection connection, List<Row> run, List<Row.Change> unplaced, Set<String> blocked)
            throws SQLException {
        List<OpenMessages.TopicKey> keys = new ArrayList<>(run.size());
        run.forEach(row -> keys.add(new OpenMessages.TopicKey(((Row.Change) row).topic(), ((Row.Change) row).key())));
        Map<String, List<OpenMessages.Open>> rows = OpenMessages.lookup(connection, keys);
        // every message of the keys, read only when a change happened before its key's open messages were sent
        Map<String, List<OpenMessages.Open>> all = null;
        List<Placed> placed = new ArrayList<>(run.size());
        List<Placed> superseded = new ArrayList<>();
        // the superseded message whose delivery a key's changes are about, until the key's next delivery
        Map<String, OpenMessages.Open> delivering = new HashMap<>();
        for (Row row : run) {
            Row.Change change = (Row.Change) row;
            String key = change.topic() + '\n' + change.key();
            if (change.sendId() != null && !change.newest()) {
                OpenMessages.Open open = OpenMessages.holding(rows, change);
                if (open != null) {
                    endOlder(OpenMessages.olderThan(rows, change, open), change, placed);
                    placed.add(new Placed(open, change));
                    continue;
                }
                // not open: a finished message that holds the send takes the change as history only. With none, the
                // send's row has not committed yet, and the change waits for it; so it does when the send's row is
                // open, which means it committed after the open messages were read (each statement reads what had
                // committed when it began): the next try reads it as open
                if (all == null) {
                    all = OpenMessages.lookup(connection, keys, false);
                }
                OpenMessages.Open done = OpenMessages.holding(all, change);
                if (done != null && done.finished()) {
                    superseded.add(new Placed(done, change));
                } else {
                    unplaced.add(change);
                    blocked.add(key);
                }
                continue;
            }
            endOlder(OpenMessages.endedBefore(rows, change), change, placed);
            OpenMessages.Open open = OpenMessages.pickFor(rows, change);
            OpenMessages.@Nullable Open older = change.state() == JournalState.DELIVERED ? null : delivering.get(key);
            if (older == null && OpenMessages.predates(open, change)) {
                if (all == null) {
                    all = OpenMessages.lookup(connection, keys, false);
                }
                older = OpenMessages.supersededFor(all, change);
            }
            if (older != null) {
                superseded.add(new Placed(older, change));
                delivering.put(key, older);
                continue;
            }
            delivering.remove(key);
            if (open == null) {
                // its send's row may not have committed yet (another process's writer), or never will be
                unplaced.add(change);
                blocked.add(key);
            } else {
                placed.add(new Placed(open, change));
            }
        }
        return new ChangePlacement(placed, superseded);
    }

    /** Ends, as merged, the key's older messages that a delivery of a newer one shows had ended. */
    private static void endOlder(List<OpenMessages.Open> older, Row.Change delivery, List<Placed> placed) {
        for (OpenMessages.Open ended : older) {
            placed.add(new Placed(ended, new Row.Change(delivery.topic(), delivery.key(), JournalState.MERGED, null,
                    null, null, false, true, delivery.time(), delivery.worker(), "a newer message of its key was "
                    + "delivered, so its own delivery had ended, though its consumer's rows of the end never came"),
                    true));
        }
    }
}
