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

    private GiveUps() {
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
