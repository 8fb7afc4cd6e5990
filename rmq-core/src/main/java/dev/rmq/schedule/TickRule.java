package dev.rmq.schedule;

import dev.rmq.internal.validation.Durations;

import java.time.Duration;
import java.time.Instant;

/**
 * When a schedule ticks. Every application that declares a schedule computes its ticks on its own, so a rule must
 * give the same ticks wherever it runs: a fixed rate counts from the epoch, not from when an application started,
 * and a cron expression is read in its own time zone.
 *
 * <p>The core has fixed rates; cron expressions come from a parser outside it (the starter's reads Spring's
 * {@code CronExpression} dialect, as {@code @Scheduled} does), so that the core stays free of Spring.
 */
public interface TickRule {

    /** The first tick strictly after {@code after}. */
    Instant next(Instant after);

    /** The rule as text, the same for equal rules: part of what applications compare to agree on a schedule. */
    String describe();

    /**
     * A tick every {@code rate}, at the multiples of it since the epoch: {@code every(Duration.ofMinutes(5))} ticks
     * at :00, :05, :10 of each hour, in every application alike.
     */
    static TickRule every(Duration rate) {
        Durations.requirePositive("the rate of a schedule", rate);
        if (rate.toMillis() < 1 || rate.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("the rate of a schedule must be a whole number of milliseconds, at least"
                    + " 1 ms, since ticks are instants in ms of the Redis clock; was " + rate);
        }
        return new Every(rate);
    }

    /** A fixed rate: see {@link #every(Duration)}. */
    record Every(Duration rate) implements TickRule {

        @Override
        public Instant next(Instant after) {
            long ms = rate.toMillis();
            long at = after.toEpochMilli();
            return Instant.ofEpochMilli(Math.floorDiv(at, ms) * ms + ms);
        }

        @Override
        public String describe() {
            return "every " + rate;
        }
    }
}
