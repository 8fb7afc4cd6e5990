package dev.rmq.internal.validation;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/** Argument checks for durations that become milliseconds in Redis. */
public final class Durations {

    /** About 285 years: keeps every derived millisecond score exact in a Redis double. */
    private static final Duration LONGEST = Duration.ofDays(365L * 285);

    /** The most a lease is extended by at once: its deadline, in microseconds, stays exact in a Redis score. */
    private static final Duration LONGEST_EXTENSION = Duration.ofDays(365L * 100);

    private Durations() {
    }

    /**
     * Refuses a lease extension shorter than 1 ms or longer than {@link #LONGEST_EXTENSION}; {@code hint} ends the
     * message, saying what to do instead.
     */
    public static Duration leaseExtension(@Nullable Duration value, String hint) {
        // the longest first: toMillis overflows past 292 million years
        if (value == null || value.compareTo(LONGEST_EXTENSION) > 0 || value.toMillis() < 1) {
            throw new IllegalArgumentException("lease extension must be at least 1 ms and at most " + LONGEST_EXTENSION
                    + ", was " + value + hint);
        }
        return value;
    }

    /** Refuses a time to live that is neither zero (none) nor at least 1 ms. */
    public static Duration timeToLive(String what, @Nullable Duration ttl) {
        if (ttl == null) {
            throw new IllegalArgumentException(what + " must not be null; use Duration.ZERO for none");
        }
        return ttl.isZero() ? ttl : requirePositive(what, ttl);
    }

    public static Duration requirePositive(String what, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        // the longest first: toMillis overflows past 292 million years
        if (value.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + LONGEST + ", was " + value);
        }
        if (value.isNegative() || value.isZero() || value.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms, was " + value);
        }
        return value;
    }
}
