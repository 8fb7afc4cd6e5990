package dev.rmq.internal.schedule;

import dev.rmq.schedule.Misfire;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.TickRule;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What one pass sends for a schedule, from its rule, the latest tick Redis records as accounted for, and now: the
 * ticks missed while nothing ran, as the misfire policy says, then the ticks due within the lead, each due at its
 * instant. Pure, so that a test gives it any clock.
 *
 * @param ticks     the messages to send, in tick order
 * @param advanceTo the latest tick accounted for once they are sent (missed ticks given up included); null when
 *                  the pass has nothing to do
 * @param missed    ticks that fell while nothing ran
 * @param caughtUp  of those, how many get a message
 * @param wakeAt    when the next pass should come for this schedule
 */
public record TickPlan(List<Tick> ticks, @Nullable Instant advanceTo, long missed, int caughtUp, Instant wakeAt) {

    /**
     * How far behind now a tick may be and still be sent as on time (due at its instant, late by that much): past it,
     * the tick counts as missed.
     */
    public static final Duration GRACE = Duration.ofSeconds(1);
    /** The longest a pass may come after the time it was planned for and still send the ticks since as late. */
    public static final Duration MAX_PASS_DELAY = Duration.ofSeconds(30);
    /** The most missed ticks one pass counts; past them it jumps to now. */
    static final int MAX_COUNTED = 100_000;
    /** The most ticks one pass sends ahead. */
    static final int MAX_AHEAD = 1_000;

    /** One tick's message: the tick, and when it is due (the tick, or now when it catches up a missed one). */
    public record Tick(Instant tick, Instant due) {
    }

    /**
     * @param last the latest tick Redis records as accounted for; null for a schedule that never ran, which misses
     *             nothing and starts with the next tick
     * @param lead how far ahead of its instant a tick is sent (zero when a tick must see whether the previous one
     *             still runs)
     */
    public static TickPlan of(RecurringSchedule schedule, @Nullable Instant last, Instant now, Duration lead) {
        return of(schedule, last, now, lead, null);
    }

    /**
     * As {@link #of(RecurringSchedule, Instant, Instant, Duration)}, for a pass this application planned for
     * {@code plannedAt} while it ran the schedule, which came late: the ticks that fell due since, up to
     * {@link #MAX_PASS_DELAY} back, are sent late rather than missed. The application was running; its pass was held
     * up (another schedule's payload supplier took seconds, a pause of the JVM), which is not what misfires are for.
     */
    public static TickPlan of(RecurringSchedule schedule, @Nullable Instant last, Instant now, Duration lead,
                              @Nullable Instant plannedAt) {
        Instant from = plannedAt != null && plannedAt.isBefore(now) && !plannedAt.isBefore(now.minus(MAX_PASS_DELAY))
                ? plannedAt : now;
        Instant cutoff = from.minus(GRACE);
        Instant next = schedule.rule().next(last != null ? last : cutoff);
        long missed = 0;
        Deque<Instant> kept = new ArrayDeque<>();
        int keep = schedule.misfire().kind() == Misfire.Kind.FIRE_ALL ? schedule.misfire().bound() : 1;
        while (!next.isAfter(cutoff)) {
            missed++;
            kept.addLast(next);
            if (kept.size() > keep) {
                kept.removeFirst();
            }
            if (missed >= MAX_COUNTED) {
                // too many to count one by one: those kept are the latest ticks before the cutoff, not the first
                kept = latestBefore(schedule.rule(), next, cutoff, keep);
                next = schedule.rule().next(cutoff);
                break;
            }
            next = schedule.rule().next(next);
        }
        List<Tick> ticks = new ArrayList<>();
        Instant advanceTo = kept.isEmpty() ? null : kept.getLast();
        int caughtUp = 0;
        if (schedule.misfire().kind() != Misfire.Kind.SKIP) {
            for (Instant tick : kept) {
                ticks.add(new Tick(tick, now));
            }
            caughtUp = kept.size();
        }
        Instant horizon = now.plus(lead);
        while (!next.isAfter(horizon) && ticks.size() < MAX_AHEAD) {
            ticks.add(new Tick(next, next));
            advanceTo = next;
            next = schedule.rule().next(next);
        }
        return new TickPlan(ticks, advanceTo, missed, caughtUp, next.minus(lead));
    }

    /**
     * The latest {@code keep} ticks after {@code floor} and at most {@code cutoff}: found in a window before the
     * cutoff that doubles until it holds as many, so that the ticks before it are never walked.
     */
    private static Deque<Instant> latestBefore(TickRule rule, Instant floor, Instant cutoff, int keep) {
        Duration back = Duration.ofMillis(1);
        while (true) {
            Instant from = cutoff.minus(back);
            boolean all = !from.isAfter(floor);
            Deque<Instant> found = new ArrayDeque<>();
            for (Instant tick = all ? floor : rule.next(from); !tick.isAfter(cutoff); tick = rule.next(tick)) {
                found.addLast(tick);
                if (found.size() > keep) {
                    found.removeFirst();
                }
            }
            if (found.size() >= keep || all) {
                return found;
            }
            back = back.multipliedBy(2);
        }
    }
}
