package dev.rmq.spring.schedule;

import dev.rmq.schedule.TickRule;
import org.springframework.scheduling.support.CronExpression;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * The ticks of a cron expression in Spring's dialect ({@code @Scheduled(cron = ...)}: six fields, seconds first),
 * or one of Spring's macros ({@code @daily}), read in a time zone. On the day the clocks go back, an expression
 * with a fixed hour (as {@code 0 0,30 2 * * *}) ticks once at each wall time that comes twice, at its first
 * occurrence, while one whose hour is a wildcard ({@code 0 0 * * * *}, {@code 0 0/15 *&#47;2 * * *}, {@code @hourly})
 * ticks every real hour, as cron has always done; on the day they go forward, a wall time that does not exist is
 * skipped, as {@code @Scheduled} skips it.
 * Usable without a Spring context: {@code CronTicks.of("0 30 2 * * *", ZoneId.of("Europe/Berlin"))}.
 */
public final class CronTicks implements TickRule {

    private final String expression;
    private final ZoneId zone;
    private final CronExpression cron;
    /** Whether the hour field is a wildcard: then every real hour ticks, the repeated one too. */
    private final boolean everyHour;

    private CronTicks(String expression, ZoneId zone, CronExpression cron) {
        this.expression = expression;
        this.zone = zone;
        this.cron = cron;
        // a macro (@daily) has one field: only @hourly runs every hour
        this.everyHour = expression.startsWith("@") ? expression.equalsIgnoreCase("@hourly")
                : expression.split("\\s+")[2].startsWith("*");
    }

    /**
     * The ticks of {@code expression} in {@code zone}.
     *
     * @throws IllegalArgumentException for an expression Spring cannot read, saying which field and value, or a
     *                                  null zone
     */
    public static CronTicks of(String expression, ZoneId zone) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("a cron expression must not be empty; six fields, seconds first, as"
                    + " \"0 30 2 * * *\"");
        }
        if (zone == null) {
            throw new IllegalArgumentException("cron expression \"" + expression + "\" needs its time zone");
        }
        try {
            return new CronTicks(expression.trim(), zone, CronExpression.parse(expression.trim()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cron expression \"" + expression + "\" is not valid: " + e.getMessage(),
                    e);
        }
    }

    /** As {@link #of(String, ZoneId)}, the zone by its id ({@code Europe/Berlin}, {@code UTC}). */
    public static CronTicks of(String expression, String zone) {
        try {
            return of(expression, ZoneId.of(zone == null ? "" : zone));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("time zone '" + zone + "' of cron expression \"" + expression
                    + "\" is unknown; use a region id such as Europe/Berlin, or UTC", e);
        }
    }

    @Override
    public Instant next(Instant after) {
        ZonedDateTime from = after.atZone(zone);
        ZonedDateTime next = cron.next(from);
        // a fixed wall time in the hour that comes twice, after the clocks went back, ticks at its first occurrence
        // only, whichever occurrence the search starts from
        while (next != null && !everyHour && !next.equals(next.withEarlierOffsetAtOverlap())) {
            next = cron.next(next);
        }
        if (next == null) {
            throw new IllegalStateException("cron expression \"" + expression + "\" has no tick after " + from);
        }
        return next.toInstant();
    }

    @Override
    public String describe() {
        return "cron " + expression + " " + zone.getId();
    }

    @Override
    public String toString() {
        return describe();
    }
}
