package dev.rmq.embedded;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until a server reaches a state; this module cannot depend on Awaitility, which is test-scoped. */
public final class Poll {

    private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    private Poll() {
    }

    /**
     * Waits until {@code condition} returns true. An exception from the condition counts as "not yet"
     * (servers refuse connections or answer LOADING while starting) and becomes the cause on timeout;
     * only {@link GiveUp} ends the wait early.
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> timeoutMessage) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (GiveUp e) {
                throw e;
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(timeoutMessage.get(), last);
            }
            LockSupport.parkNanos(INTERVAL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting: " + timeoutMessage.get(), last);
            }
        }
    }

    /** Thrown by a condition that knows waiting longer cannot help, e.g. the process already exited. */
    public static class GiveUp extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public GiveUp(String message) {
            super(message);
        }
    }
}
