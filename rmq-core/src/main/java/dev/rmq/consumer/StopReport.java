package dev.rmq.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * What a stop achieved within its bound: how long it took, how many slots it gave back cleanly, and what it
 * had to leave behind because Redis or ZooKeeper did not answer in time. What is left behind needs no action:
 * a fencing token left in Redis makes the next owner wait out the leases of the slot, an owner znode left in
 * ZooKeeper goes with the session, and a delivery left unacknowledged is recovered when its lease runs out.
 *
 * @param took                 how long the stop took
 * @param slotsReleased        slots given back cleanly (fence cleared and owner znode deleted, when coordinated)
 * @param fencingTokensLeft    slots whose fencing token could not be cleared in Redis within the bound
 * @param ownerZnodesLeft      slots whose owner znode could not be deleted in ZooKeeper within the bound
 * @param deliveriesLeftToLeases deliveries neither acknowledged nor handed back: a handler still running at the
 *                             bound, or an acknowledgement Redis did not take; they are redelivered after their lease
 * @param unreachable          what did not answer ({@code Redis}, {@code ZooKeeper}), for the summary; empty when all did
 */
public record StopReport(Duration took, int slotsReleased, int fencingTokensLeft, int ownerZnodesLeft,
                         int deliveriesLeftToLeases, List<String> unreachable) {

    /** A stop of something that was not running. */
    public static final StopReport NOTHING = new StopReport(Duration.ZERO, 0, 0, 0, 0, List.of());

    public StopReport {
        unreachable = List.copyOf(new TreeSet<>(unreachable));
    }

    /** Several stops made side by side: their sums, and the longest of their times. */
    public static StopReport sum(List<StopReport> reports) {
        Duration took = Duration.ZERO;
        int released = 0;
        int tokens = 0;
        int znodes = 0;
        int deliveries = 0;
        List<String> unreachable = new ArrayList<>();
        for (StopReport r : reports) {
            took = r.took.compareTo(took) > 0 ? r.took : took;
            released += r.slotsReleased;
            tokens += r.fencingTokensLeft;
            znodes += r.ownerZnodesLeft;
            deliveries += r.deliveriesLeftToLeases;
            unreachable.addAll(r.unreachable);
        }
        return new StopReport(took, released, tokens, znodes, deliveries, unreachable);
    }

    /** Whether a user must know of it: deliveries will come again only after their lease. */
    public boolean needsAttention() {
        return deliveriesLeftToLeases > 0;
    }

    /**
     * One line for the log, e.g. {@code stopped in 1.2 s; 32 slots released; 0 fencing tokens left to expire}, with
     * what did not answer.
     */
    public String describe() {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "stopped in %.1f s; %d slot%s released",
                took.toMillis() / 1000.0, slotsReleased, slotsReleased == 1 ? "" : "s"));
        line.append("; ").append(fencingTokensLeft).append(" fencing token").append(fencingTokensLeft == 1 ? "" : "s")
                .append(" left to expire");
        if (ownerZnodesLeft > 0) {
            line.append("; ").append(ownerZnodesLeft).append(" owner znode").append(ownerZnodesLeft == 1 ? "" : "s")
                    .append(" left to the session");
        }
        if (deliveriesLeftToLeases > 0) {
            line.append("; ").append(deliveriesLeftToLeases).append(" deliver").append(deliveriesLeftToLeases == 1 ? "y" : "ies")
                    .append(" left to lease recovery (redelivered once their lease runs out)");
        }
        if (!unreachable.isEmpty()) {
            line.append(" (").append(String.join(" and ", unreachable)).append(" unreachable)");
        }
        return line.toString();
    }
}
