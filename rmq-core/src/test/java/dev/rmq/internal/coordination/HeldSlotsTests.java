package dev.rmq.internal.coordination;

import dev.rmq.consumer.SlotOwner;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which held slots a connection change applies to: the claims made before it, and on LOST also a claim whose
 * owner znode belongs to a session other than the client's now.
 */
class HeldSlotsTests {

    private static final long OLD_SESSION = 0x100;
    private static final long NEW_SESSION = 0x200;

    private final Revokes worker = new Revokes();
    private final HeldSlots slots = new HeldSlots();

    @Test
    void aSuspensionStopsPollingTheClaimsMadeBeforeItAndKeepsThemHeld() {
        slots.add(0, worker, "t0", "f0", OLD_SESSION);
        long claimedBefore = slots.claimsMade();
        slots.add(1, worker, "t1", "f1", OLD_SESSION);

        slots.pause(claimedBefore);

        assertThat(worker.revoked).containsExactly(0);
        assertThat(slots.get(0).paused).isNotNull();
        assertThat(slots.get(1).paused).as("claimed after the suspension: still polled").isNull();
        assertThat(slots.count()).as("the owner znodes may still be ours").isEqualTo(2);
    }

    @Test
    void aLostSessionGivesUpTheClaimsBeforeItAndThoseOfAnotherSession() {
        slots.add(0, worker, "t0", "f0", OLD_SESSION);
        long claimedBefore = slots.claimsMade();
        // finished after LOST was signalled: one in the ended session (its znode went with it), one in the new
        slots.add(1, worker, "t1", "f1", OLD_SESSION);
        slots.add(2, worker, "t2", "f2", NEW_SESSION);

        slots.lose(claimedBefore, NEW_SESSION);

        assertThat(worker.revoked).containsExactlyInAnyOrder(0, 1);
        assertThat(slots.contains(0)).isFalse();
        assertThat(slots.contains(1)).as("its owner znode is of the ended session").isFalse();
        assertThat(slots.contains(2)).as("claimed in the session the client has now").isTrue();
        assertThat(slots.get(2).paused).isNull();
        assertThat(slots.count()).isEqualTo(1);
    }

    @Test
    void aLostSessionGivesUpAClaimMadeBeforeItWhateverSessionItNames() {
        // the claim's order alone: made before the change was signalled, it goes whatever session it names
        slots.add(0, worker, "t0", "f0", NEW_SESSION);
        long claimedBefore = slots.claimsMade();

        slots.lose(claimedBefore, NEW_SESSION);

        assertThat(worker.revoked).containsExactly(0);
        assertThat(slots.count()).isZero();
    }

    @Test
    void aSlotAlreadyPausedIsNotRevokedTwice() {
        slots.add(0, worker, "t0", "f0", OLD_SESSION);
        long claimedBefore = slots.claimsMade();
        slots.pause(claimedBefore);

        slots.lose(claimedBefore, NEW_SESSION);

        assertThat(worker.revoked).containsExactly(0);
        assertThat(slots.count()).isZero();
    }

    /** A worker that records the slots taken back from it. */
    private static final class Revokes implements SlotOwner {

        final List<Integer> revoked = new ArrayList<>();

        @Override
        public String workerId() {
            return "w0";
        }

        @Override
        public void assign(int slot, String fencingToken, Duration holdOff) {
        }

        @Override
        public CompletionStage<Void> revoke(int slot) {
            revoked.add(slot);
            return new CompletableFuture<>();
        }

        @Override
        public Set<Integer> ownedSlots() {
            return Set.of();
        }
    }
}
