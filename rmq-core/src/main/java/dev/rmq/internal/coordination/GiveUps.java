package dev.rmq.internal.coordination;

import dev.rmq.consumer.StopReport;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The bounded give-back of an assignment's slots at close: waiting for it until a deadline, and what it left. */
final class GiveUps {

    /**
     * How long a close lets a reconcile in flight finish before it cuts its calls short: ample for a ZooKeeper and a
     * Redis that answer, and a cut call may leave a claim half made (a token that the next owner waits out).
     */
    private static final long CALL_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private GiveUps() {
    }

    /**
     * Waits until {@code deadlineNanos} for the give-back that {@code started} completes with, once the assignment's
     * thread gets to it, and then for each slot's give-back. A reconcile still in a call after a short grace has the
     * call cut short, so that a silent ZooKeeper does not hold the give-back past the deadline.
     *
     * @return the slots being given back, or null when the thread did not get to them in time
     */
    static @Nullable List<CompletableFuture<SlotClaims.GivingUp>> await(
            CompletableFuture<List<CompletableFuture<SlotClaims.GivingUp>>> started, CallsInFlight calls,
            long startNanos, long deadlineNanos) {
        List<CompletableFuture<SlotClaims.GivingUp>> gives = waitUntil(started,
                startNanos + Math.min(deadlineNanos - startNanos, CALL_GRACE_NANOS));
        if (gives == null) {
            // the thread is still in a reconcile's call, most likely to a ZooKeeper or Redis that does not answer
            calls.cut();
            gives = waitUntil(started, deadlineNanos);
        }
        if (gives != null) {
            List<CompletableFuture<Void>> all = gives.stream()
                    .map(give -> give.thenCompose(SlotClaims.GivingUp::both)).toList();
            waitUntil(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)), deadlineNanos);
        }
        return gives;
    }

    /**
     * @param gives     the slots being given back, or null when the assignment's thread did not get to them in time
     * @param heldCount how many slots were held, for the null case
     */
    static StopReport report(@Nullable List<CompletableFuture<SlotClaims.GivingUp>> gives, int heldCount,
                             long startNanos) {
        int released = 0;
        int tokensLeft = 0;
        int znodesLeft = 0;
        List<String> unreachable = new ArrayList<>();
        if (gives == null) {
            // the assignment's thread was busy past the bound (a ZooKeeper call that did not return): nothing was given back
            tokensLeft = heldCount;
            znodesLeft = heldCount;
        } else {
            for (CompletableFuture<SlotClaims.GivingUp> give : gives) {
                SlotClaims.GivingUp giving = give.getNow(null);
                boolean token = giving != null && giving.tokenCleared().getNow(false);
                boolean znode = giving != null && giving.znodeDeleted().getNow(false);
                released += token && znode ? 1 : 0;
                if (!token) {
                    tokensLeft++;
                    unreachable.add(giving == null ? "a worker" : "Redis");
                }
                if (!znode) {
                    znodesLeft++;
                    unreachable.add(giving == null ? "a worker" : "ZooKeeper");
                }
            }
        }
        return new StopReport(Duration.ofNanos(System.nanoTime() - startNanos), released, tokensLeft, znodesLeft, 0,
                unreachable.stream().filter(what -> !what.equals("a worker")).toList());
    }

    /** The value of {@code stage} once it completes, or null when it does not by the deadline. */
    static <T> @Nullable T waitUntil(CompletableFuture<T> stage, long deadlineNanos) {
        try {
            return stage.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
