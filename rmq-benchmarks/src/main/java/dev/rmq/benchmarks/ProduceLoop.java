package dev.rmq.benchmarks;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The loop of every produce case, rmq's and the peers' alike, so that they are all timed the same way:
 * {@code count} messages in calls of up to {@code batch}, at most {@code inFlight} calls outstanding, from
 * before the first call to the completion of the last.
 */
final class ProduceLoop {

    /**
     * Prepares the call that sends messages {@code first} to {@code first + n - 1}, and returns it to be made
     * once it has a place in the window; what it prepares is ready by the time a place frees.
     */
    interface Calls {
        Supplier<? extends CompletionStage<?>> prepare(long first, int n);
    }

    private ProduceLoop() {
    }

    /** Runs the calls; {@code what} names a failed call in the exception that ends the case. */
    static Measured run(RedisProbe probe, long count, int batch, int inFlight, String what, Calls calls) {
        InFlight window = new InFlight(inFlight);
        RedisProbe.Snapshot before = probe.snapshot();
        long start = System.nanoTime();
        long sent = 0;
        while (sent < count && !window.failed()) {
            int n = (int) Math.min(batch, count - sent);
            window.submit(calls.prepare(sent, n));
            sent += n;
        }
        window.awaitAll();
        long end = System.nanoTime();
        window.rethrow(what);
        return new Measured(count, (end - start) / 1e9, probe.snapshot().since(before));
    }
}
