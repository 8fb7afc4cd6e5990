package dev.rmq.consumer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/** A worker as a {@link SlotAssignment} sees it: slots can be given to it and taken back. */
public interface SlotOwner {

    /** Unique in the whole cluster while the worker lives. */
    String workerId();

    /**
     * Gives the worker a slot.
     *
     * @param fencingToken the token the slot's owner key holds in Redis, checked by every script of the slot;
     *                     empty when the assignment does not fence
     * @param holdOff      how long to wait before the first poll: a slot taken over without a release waits
     *                     until the previous owner's leases are over, so a handler of it still running (a
     *                     paused or cut-off worker) never runs beside this one's
     */
    void assign(int slot, String fencingToken, Duration holdOff);

    /** Gives the worker a slot to poll at once. */
    default void assign(int slot, String fencingToken) {
        assign(slot, fencingToken, Duration.ZERO);
    }

    /**
     * Takes a slot back. The worker stops polling it and finishes (commits or rolls back) what it holds
     * of it; the stage completes after that, so the next owner may start.
     */
    CompletionStage<Void> revoke(int slot);

    /** The slots the worker holds now. */
    Set<Integer> ownedSlots();
}
