package dev.rmq.internal.validation;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/** Argument checks for durations that become milliseconds in Redis. */
public final class Durations {

    /** About 285 years: keeps every derived millisecond score exact in a Redis double. */
    private static final Duration LONGEST = Duration.ofDays(365L * 285);

    private Durations() {
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
        if (value.isNegative() || value.isZero() || value.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms, was " + value);
        }
        if (value.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + LONGEST + ", was " + value);
        }
        return value;
    }
}
