package dev.rmq.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clock of the consume cases: counts a no-op handler's calls and notes when the first came and when the
 * {@code count}-th did, so that a consumer's start-up is left out of its rate.
 */
final class CallTimer {

    private final long count;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();
    private final CountDownLatch done = new CountDownLatch(1);

    CallTimer(long count) {
        this.count = count;
    }

    /** One handler call. */
    void call() {
        calls(1);
    }

    /** A batch handler's call with {@code messages} messages. */
    void calls(int messages) {
        long n = calls.addAndGet(messages);
        if (n == messages) {
            firstNanos.set(System.nanoTime());
        }
        if (n >= count && n - messages < count) {
            lastNanos.set(System.nanoTime());
            done.countDown();
        }
    }

    long calls() {
        return calls.get();
    }

    /** Whether the {@code count}-th call came within the time. */
    boolean await(long seconds) {
        return Waits.await(done, seconds, TimeUnit.SECONDS);
    }

    /**
     * The run from the first call to the {@code count}-th: {@code count - 1} messages, as the first call
     * starts the clock.
     */
    Measured measured(RedisProbe.Cost cost) {
        return new Measured(count - 1, (lastNanos.get() - firstNanos.get()) / 1e9, cost);
    }
}
