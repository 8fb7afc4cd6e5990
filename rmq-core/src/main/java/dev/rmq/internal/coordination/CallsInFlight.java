package dev.rmq.internal.coordination;

import org.jspecify.annotations.Nullable;

/**
 * The blocking ZooKeeper and Redis calls of the assignment's thread, which a close may cut short. A call to a
 * ZooKeeper that went silent waits for the session's read timeout, then for Curator's retries, each as long as the
 * connection timeout: seconds past a stop's bound, and the slots can only be given back on that thread after it.
 * Cutting interrupts the calls; Curator and Redisson end a wait on an interrupt.
 */
final class CallsInFlight {

    private final Object lock = new Object();
    /** The thread in {@link #run}, or null. */
    private @Nullable Thread calling;

    /** Runs {@code calls} on the current thread. */
    void run(Runnable calls) {
        synchronized (lock) {
            calling = Thread.currentThread();
        }
        try {
            calls.run();
        } finally {
            synchronized (lock) {
                calling = null;
                // an interrupt meant for these calls must not reach what the thread runs next: the give-back
                Thread.interrupted();
            }
        }
    }

    /**
     * Interrupts the calls running now. Later calls are not refused here: a reconcile that starts after the close
     * finds the assignment closed and makes none.
     */
    void cut() {
        synchronized (lock) {
            if (calling != null) {
                calling.interrupt();
            }
        }
    }
}
