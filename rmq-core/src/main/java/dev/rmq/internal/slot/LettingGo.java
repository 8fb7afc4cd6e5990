package dev.rmq.internal.slot;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

/**
 * Whether a slot session is being let go, and whether a poll of it is on its way. A revoke may come on another thread
 * than the session's polls (a puller's assignment): the two decide under one monitor which came first, so that a
 * slot is let go only once no poll can still bring deliveries of it, and no poll starts after the revoke.
 */
final class LettingGo {

    /** Set when the slot is to be let go; completes once it has been let go. Null while it is held. */
    private volatile @Nullable CompletableFuture<Void> revoked;
    private boolean polling;

    boolean marked() {
        return revoked != null;
    }

    /** Marks the slot to be let go and returns the stage that completes once it is. */
    synchronized CompletableFuture<Void> mark() {
        if (revoked == null) {
            revoked = new CompletableFuture<>();
        }
        return revoked;
    }

    /** Starts a poll, unless the slot is being let go: false then. */
    synchronized boolean pollStarts() {
        polling = revoked == null;
        return polling;
    }

    synchronized void pollEnded() {
        polling = false;
    }

    /** Whether no poll is on its way: what a poll takes is among the session's deliveries once it has ended. */
    synchronized boolean noPollOnItsWay() {
        return !polling;
    }
}
