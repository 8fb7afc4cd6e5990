package dev.rmq.internal.coordination;

import dev.rmq.consumer.SlotOwner;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The slots one assignment holds, each with the worker polling it, its fencing token and the claim that took it.
 * Changed on the assignment's thread only; how many are held, and how many claims were made, are read by the
 * connection listener too.
 *
 * <p>Claims are counted because a connection change applies to the claims made before it: a reconcile that was
 * waiting on ZooKeeper when the session went may finish its claims once the client has a new session, after the
 * change was signalled and before the assignment's thread gets to it, and those claims hold in the new session.
 */
final class HeldSlots {

    /** A slot this instance holds: the worker polling it, the token, and whether polling is paused. */
    static final class Held {
        final SlotOwner worker;
        /** The claim's token, which its owner znode holds. */
        final String token;
        /** The fencing token its worker polls with: the claim's token and its order. */
        final String fence;
        /** Which claim took it, counted by {@link HeldSlots#claimsMade()}. */
        final long claim;
        /** The ZooKeeper session its owner znode belongs to. */
        final long session;
        /** The revoke that paused polling it; null while it is polled. */
        @Nullable CompletionStage<Void> paused;
        boolean releasing;

        private Held(SlotOwner worker, String token, String fence, long claim, long session) {
            this.worker = worker;
            this.token = token;
            this.fence = fence;
            this.claim = claim;
            this.session = session;
        }
    }

    private final Map<Integer, Held> held = new HashMap<>();
    private final AtomicLong claimsMade = new AtomicLong();
    private volatile int count;

    /** Records a slot just claimed in ZooKeeper session {@code session}, its worker polling with {@code fence}. */
    void add(int slot, SlotOwner worker, String token, String fence, long session) {
        held.put(slot, new Held(worker, token, fence, claimsMade.incrementAndGet(), session));
        count = held.size();
    }

    @Nullable Held get(int slot) {
        return held.get(slot);
    }

    boolean contains(int slot) {
        return held.containsKey(slot);
    }

    /** A copy of what is held, slot by slot, to go through while it changes. */
    List<Map.Entry<Integer, Held>> snapshot() {
        return new ArrayList<>(held.entrySet());
    }

    /** Forgets a slot, when it is still held under {@code h}. */
    void remove(int slot, Held h) {
        held.remove(slot, h);
        count = held.size();
    }

    void clear() {
        held.clear();
        count = 0;
    }

    /** How many slots are held; from any thread. */
    int count() {
        return count;
    }

    /** How many claims were made so far; from any thread, as a connection change arrives. */
    long claimsMade() {
        return claimsMade.get();
    }

    /**
     * SUSPENDED: stops polling what was claimed before the suspension, at once; the owner znodes may still be ours.
     * A claim made after it, by a reconcile that waited out the outage in a ZooKeeper call, is left polling.
     */
    void pause(long claimedBefore) {
        stopPolling(h -> h.claim <= claimedBefore);
    }

    /** Stops polling, at once, each slot still polled that {@code which} names. */
    private void stopPolling(Predicate<Held> which) {
        held.forEach((slot, h) -> {
            if (h.paused == null && which.test(h)) {
                h.paused = h.worker.revoke(slot);
            }
        });
    }

    /**
     * LOST: the session and its ephemeral znodes are gone; gives up every slot claimed in it: those claimed before
     * the change, and any other whose owner znode is not of {@code session}, the client's session now (a claim
     * that the change overtook between its znode and its record here). Had the change been taken for all that is
     * held, the claims a reconcile made in the new session would be revoked, and the next reconcile would claim
     * them again and fence its own workers in the middle of their batches.
     */
    void lose(long claimedBefore, long session) {
        Predicate<Held> lost = h -> h.claim <= claimedBefore || h.session != session;
        stopPolling(lost);
        held.values().removeIf(lost);
        count = held.size();
    }
}
