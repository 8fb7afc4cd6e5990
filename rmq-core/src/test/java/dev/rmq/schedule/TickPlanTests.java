package dev.rmq.schedule;

import dev.rmq.internal.schedule.TickPlan;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What one pass sends, on a clock the test sets: on time, ahead, and after ticks were missed, by each policy. */
class TickPlanTests {

    private static final Instant NOW = Instant.parse("2026-11-28T10:00:00.300Z");
    private static final Duration LEAD = Duration.ofSeconds(1);

    private static RecurringSchedule everySecond(Misfire misfire) {
        return RecurringSchedule.builder("beat", "timers", TickRule.every(Duration.ofSeconds(1))).misfire(misfire)
                .build();
    }

    @Test
    void aFixedRateTicksAtItsMultiplesSinceTheEpochWhereverItRuns() {
        TickRule fiveMinutes = TickRule.every(Duration.ofMinutes(5));
        assertThat(fiveMinutes.next(Instant.parse("2026-11-28T10:03:17Z"))).isEqualTo("2026-11-28T10:05:00Z");
        assertThat(fiveMinutes.next(Instant.parse("2026-11-28T10:05:00Z"))).as("strictly after")
                .isEqualTo("2026-11-28T10:10:00Z");
        assertThatIllegalArgumentException().isThrownBy(() -> TickRule.every(Duration.ZERO))
                .withMessageContaining("rate of a schedule");
    }

    @Test
    void aNewScheduleMissesNothingAndSendsTheTicksWithinTheGraceAndTheLead() {
        TickPlan plan = TickPlan.of(everySecond(Misfire.FIRE_ONCE), null, NOW, LEAD);

        assertThat(plan.missed()).isZero();
        assertThat(plan.ticks()).extracting(TickPlan.Tick::tick).as("the tick 300 ms ago, and the next")
                .containsExactly(Instant.parse("2026-11-28T10:00:00Z"), Instant.parse("2026-11-28T10:00:01Z"));
        assertThat(plan.ticks()).allSatisfy(t -> assertThat(t.due()).isEqualTo(t.tick()));
        assertThat(plan.advanceTo()).isEqualTo("2026-11-28T10:00:01Z");
        assertThat(plan.wakeAt()).as("when the next tick comes within the lead").isEqualTo("2026-11-28T10:00:01Z");
    }

    @Test
    void aTickLessThanTheGraceBehindIsSentAsOnTime() {
        TickPlan plan = TickPlan.of(everySecond(Misfire.SKIP), Instant.parse("2026-11-28T09:59:59Z"), NOW, LEAD);

        assertThat(plan.missed()).isZero();
        assertThat(plan.ticks()).extracting(TickPlan.Tick::tick).containsExactly(
                Instant.parse("2026-11-28T10:00:00Z"), Instant.parse("2026-11-28T10:00:01Z"));
        assertThat(plan.ticks().get(0).due()).as("due at its instant, just passed").isEqualTo("2026-11-28T10:00:00Z");
    }

    @Test
    void aTickThatFellDueWhileThePassWasHeldUpIsSentLateNotMissed() {
        Instant last = Instant.parse("2026-11-28T09:59:57Z");
        // planned for 09:59:57.5 and held up 2.8 s by another schedule's slow payload supplier
        TickPlan plan = TickPlan.of(everySecond(Misfire.SKIP), last, NOW, LEAD, Instant.parse("2026-11-28T09:59:57.500Z"));

        assertThat(plan.missed()).isZero();
        assertThat(plan.ticks()).extracting(TickPlan.Tick::tick).containsExactly(
                Instant.parse("2026-11-28T09:59:58Z"), Instant.parse("2026-11-28T09:59:59Z"),
                Instant.parse("2026-11-28T10:00:00Z"), Instant.parse("2026-11-28T10:00:01Z"));
        assertThat(plan.ticks().get(0).due()).as("due at its instant, late").isEqualTo("2026-11-28T09:59:58Z");

        TickPlan stalled = TickPlan.of(everySecond(Misfire.SKIP), last, NOW, LEAD,
                NOW.minus(TickPlan.MAX_PASS_DELAY).minusSeconds(1));
        assertThat(stalled.missed()).as("held up past the bound: not running, as far as the schedule goes")
                .isEqualTo(2);
    }

    @Test
    void fireOnceSendsOneMessageForAllTheMissedTicksDueNow() {
        Instant last = NOW.minus(Duration.ofSeconds(6)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        TickPlan plan = TickPlan.of(everySecond(Misfire.FIRE_ONCE), last, NOW, LEAD);

        assertThat(plan.missed()).isEqualTo(5);
        assertThat(plan.caughtUp()).isEqualTo(1);
        assertThat(plan.ticks().get(0)).isEqualTo(new TickPlan.Tick(Instant.parse("2026-11-28T09:59:59Z"), NOW));
        assertThat(plan.ticks()).extracting(TickPlan.Tick::tick).containsExactly(
                Instant.parse("2026-11-28T09:59:59Z"), Instant.parse("2026-11-28T10:00:00Z"),
                Instant.parse("2026-11-28T10:00:01Z"));
    }

    @Test
    void skipSendsNoneOfTheMissedTicksButAccountsForThem() {
        Instant last = Instant.parse("2026-11-28T09:59:54Z");
        TickPlan plan = TickPlan.of(everySecond(Misfire.SKIP), last, NOW, LEAD);

        assertThat(plan.missed()).isEqualTo(5);
        assertThat(plan.caughtUp()).isZero();
        assertThat(plan.ticks()).extracting(TickPlan.Tick::tick).containsExactly(
                Instant.parse("2026-11-28T10:00:00Z"), Instant.parse("2026-11-28T10:00:01Z"));
    }

    @Test
    void fireAllSendsTheLatestMissedTicksUpToItsBound() {
        Instant last = Instant.parse("2026-11-28T09:59:54Z");
        TickPlan plan = TickPlan.of(everySecond(Misfire.fireAll(3)), last, NOW, Duration.ZERO);

        assertThat(plan.missed()).isEqualTo(5);
        assertThat(plan.caughtUp()).isEqualTo(3);
        assertThat(plan.ticks()).containsExactly(
                new TickPlan.Tick(Instant.parse("2026-11-28T09:59:57Z"), NOW),
                new TickPlan.Tick(Instant.parse("2026-11-28T09:59:58Z"), NOW),
                new TickPlan.Tick(Instant.parse("2026-11-28T09:59:59Z"), NOW),
                new TickPlan.Tick(Instant.parse("2026-11-28T10:00:00Z"), Instant.parse("2026-11-28T10:00:00Z")));
        assertThatIllegalArgumentException().isThrownBy(() -> Misfire.fireAll(0)).withMessageContaining("bound");
    }

    @Test
    void pastTheMostTicksCountedTheTicksCaughtUpAreStillTheLatestMissed() {
        // a day of a 10 ms rate missed: 8.6 million ticks, more than one pass counts
        RecurringSchedule fast = RecurringSchedule.builder("fast", "timers", TickRule.every(Duration.ofMillis(10)))
                .misfire(Misfire.fireAll(3)).build();
        TickPlan plan = TickPlan.of(fast, NOW.minus(Duration.ofDays(1)), NOW, Duration.ZERO);

        assertThat(plan.missed()).as("counted up to a bound").isEqualTo(100_000);
        Instant cutoff = NOW.minus(TickPlan.GRACE);
        assertThat(plan.ticks().subList(0, 3)).extracting(TickPlan.Tick::tick).containsExactly(
                cutoff.minusMillis(20), cutoff.minusMillis(10), cutoff);
        assertThat(plan.advanceTo()).isAfterOrEqualTo(cutoff);

        TickPlan once = TickPlan.of(RecurringSchedule.builder("fast", "timers", TickRule.every(Duration.ofMillis(10)))
                .build(), NOW.minus(Duration.ofDays(1)), NOW, Duration.ZERO);
        assertThat(once.ticks().get(0).tick()).as("FIRE_ONCE sends the latest missed tick").isEqualTo(cutoff);
    }

    @Test
    void aRateOfLessThanAMillisecondIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> TickRule.every(Duration.ofNanos(500_000)))
                .withMessageContaining("at least 1 ms");
        assertThatIllegalArgumentException().isThrownBy(() -> TickRule.every(Duration.ofNanos(1_500_000)))
                .withMessageContaining("whole number of milliseconds");
    }

    @Test
    void aScheduleUpToDateHasNothingToSendUntilItsNextTickComesWithinTheLead() {
        Instant last = Instant.parse("2026-11-28T10:00:05Z");
        TickPlan plan = TickPlan.of(everySecond(Misfire.FIRE_ONCE), last, NOW, LEAD);

        assertThat(plan.ticks()).isEmpty();
        assertThat(plan.advanceTo()).isNull();
        assertThat(plan.wakeAt()).isEqualTo("2026-11-28T10:00:05Z");
    }
}
