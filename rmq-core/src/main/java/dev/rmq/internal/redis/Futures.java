package dev.rmq.internal.redis;

import dev.rmq.exceptions.RmqException;
import dev.rmq.exceptions.RmqUnavailableException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits on the async primitives for the blocking API, rethrowing their failures unwrapped. */
public final class Futures {

    private Futures() {
    }

    /**
     * The longest a consumer thread waits for one of its Redis calls. The client's own timeouts and retries
     * end a call long before; this only keeps a reply the client lost from freezing a worker, and the slot
     * it holds, for good.
     */
    public static final Duration BACKSTOP = Duration.ofMinutes(1);

    public static <T> T join(CompletionStage<T> stage) {
        return joinWithin(stage, null);
    }

    /** As {@link #join(CompletionStage)}, but gives up after {@link #BACKSTOP}. */
    public static <T> T joinBounded(CompletionStage<T> stage) {
        return joinWithin(stage, BACKSTOP);
    }

    /** Waits at most {@code limit}, or without a limit when it is null. */
    static <T> T joinWithin(CompletionStage<T> stage, @Nullable Duration limit) {
        try {
            return limit == null ? stage.toCompletableFuture().get()
                    : stage.toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new RmqUnavailableException("the Redis client did not complete a call within " + limit, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RmqException("interrupted while waiting for Redis", e);
        } catch (ExecutionException | CompletionException e) {
            throw rethrowable(e.getCause());
        } catch (CancellationException e) {
            throw new RmqException("the Redis call was cancelled", e);
        }
    }

    /**
     * The failure of a future as something to throw: its own runtime exception, or one that wraps it; null (a
     * wrapper that carried no cause) gives an exception without a cause.
     */
    public static RuntimeException rethrowable(@Nullable Throwable cause) {
        Throwable c = cause == null ? null : RedisFailures.unwrap(cause);
        if (c instanceof RuntimeException runtime) {
            return runtime;
        }
        if (c instanceof Error error) {
            throw error;
        }
        return new RmqException(String.valueOf(c), c);
    }
}
