package dev.rmq.benchmarks;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A window of asynchronous calls: at most {@code limit} outstanding, and the first failure among them. The
 * produce cases keep a fixed number of calls in flight, which is the shape their figures are reported for.
 */
final class InFlight {

    private final int limit;
    private final Semaphore window;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    InFlight(int limit) {
        this.limit = limit;
        this.window = new Semaphore(limit);
    }

    /** Waits for a free place in the window, then makes the call and keeps its place until it completes. */
    void submit(Supplier<? extends CompletionStage<?>> call) {
        window.acquireUninterruptibly();
        call.get().whenComplete((result, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
            window.release();
        });
    }

    boolean failed() {
        return failure.get() != null;
    }

    /** Waits until every call submitted has completed. */
    void awaitAll() {
        window.acquireUninterruptibly(limit);
    }

    /** Throws the first failure, if a call failed, as {@code what} failed. */
    void rethrow(String what) {
        Throwable first = failure.get();
        if (first != null) {
            throw new IllegalStateException(what + ": " + first, first);
        }
    }
}
