package dev.rmq.internal.redis;

import dev.rmq.exceptions.RmqUnavailableException;
import org.jspecify.annotations.Nullable;
import org.redisson.RedissonShutdownException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisTimeoutException;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed Redis call's exception says: one reading, shared by whoever must tell failures apart. */
public final class RedisFailures {

    private RedisFailures() {
    }

    /** The failure a future's wrappers ({@link CompletionException}, {@link ExecutionException}) carry. */
    public static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * The failure in the chain that says Redis could not be reached or did not answer in time (down, unreachable,
     * too slow, or the client shut down), or null when Redis answered, even with an error.
     */
    public static @Nullable Throwable unreachableCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RmqUnavailableException || t instanceof RedisConnectionException
                    || t instanceof RedisTimeoutException || t instanceof RedissonShutdownException
                    || t instanceof IOException) {
                return t;
            }
        }
        return null;
    }
}
