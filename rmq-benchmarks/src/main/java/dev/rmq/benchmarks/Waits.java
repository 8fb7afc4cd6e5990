package dev.rmq.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Waiting without a checked interrupt. Nothing in the benchmark interrupts its own threads, so an interrupt
 * ends the run: the thread's flag is set again and an unchecked exception goes up to the command.
 */
final class Waits {

    private Waits() {
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /** Whether the latch reached zero within the time. */
    static boolean await(CountDownLatch latch, long timeout, TimeUnit unit) {
        try {
            return latch.await(timeout, unit);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    static IllegalStateException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted", e);
    }
}
