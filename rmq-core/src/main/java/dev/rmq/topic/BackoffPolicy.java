package dev.rmq.topic;

import dev.rmq.internal.validation.Durations;

import java.time.Duration;

/**
 * How long a failed message waits before its next attempt: {@code initial × multiplier^(attempt-1)},
 * capped at {@code max}, then shortened by a random fraction of up to {@code jitter} so that a burst
 * of failures does not come back in lockstep. The delay is computed inside Redis, by the script that
 * rolls the message back, so that a rollback and an expired lease follow the same policy.
 *
 * @param initial    the delay after the first failed attempt, positive
 * @param multiplier 1 for a fixed delay, above 1 for an exponential one
 * @param max        the cap, at least {@code initial}
 * @param jitter     a fraction in [0, 1)
 */
public record BackoffPolicy(Duration initial, double multiplier, Duration max, double jitter) {

    /** Exponential from 1 s, doubling, capped at 5 min, with 20% jitter. */
    public static final BackoffPolicy DEFAULT = exponential(Duration.ofSeconds(1), Duration.ofMinutes(5));

    public BackoffPolicy {
        Durations.requirePositive("backoff initial delay", initial);
        Durations.requirePositive("backoff max delay", max);
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff max delay " + max + " must not be shorter than the initial delay " + initial);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be a finite number of at least 1, was " + multiplier);
        }
        if (!(jitter >= 0.0 && jitter < 1.0)) {
            throw new IllegalArgumentException("backoff jitter must be in [0, 1), was " + jitter);
        }
    }

    /** The same delay after every failure, without jitter. */
    public static BackoffPolicy fixed(Duration delay) {
        return new BackoffPolicy(delay, 1.0, delay, 0.0);
    }

    /** Doubling from {@code initial} up to {@code max}, with 20% jitter. */
    public static BackoffPolicy exponential(Duration initial, Duration max) {
        return new BackoffPolicy(initial, 2.0, max, 0.2);
    }

    /** This policy with another jitter fraction. */
    public BackoffPolicy withJitter(double fraction) {
        return new BackoffPolicy(initial, multiplier, max, fraction);
    }

    /**
     * The longest wait before the next attempt after {@code attempts} failed ones: {@code initial ×
     * multiplier^(attempts-1)}, capped at {@code max}; the jitter shortens it by up to its fraction.
     */
    public Duration delayAfter(int attempts) {
        double millis = initial.toMillis() * Math.pow(multiplier, Math.max(0, attempts - 1));
        return Duration.ofMillis((long) Math.min(millis, max.toMillis()));
    }
}
