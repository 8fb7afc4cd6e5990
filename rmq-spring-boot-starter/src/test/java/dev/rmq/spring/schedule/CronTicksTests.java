package dev.rmq.spring.schedule;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Cron ticks on the days the clocks change, computed from fixed instants rather than waited for. */
class CronTicksTests {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static List<Instant> ticks(CronTicks rule, Instant from, int count) {
        List<Instant> ticks = new ArrayList<>();
        Instant at = from;
        for (int i = 0; i < count; i++) {
            at = rule.next(at);
            ticks.add(at);
        }
        return ticks;
    }

    @Test
    void aWallTimeThatComesTwiceWhenTheClocksGoBackTicksOnce() {
        // 2026-10-25: 03:00 CEST becomes 02:00 CET, so 02:30 comes at 00:30 UTC and again at 01:30 UTC
        List<Instant> ticks = ticks(CronTicks.of("0 30 2 * * *", BERLIN), Instant.parse("2026-10-24T12:00:00Z"), 3);

        assertThat(ticks).containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"),
                Instant.parse("2026-10-27T01:30:00Z"));
    }

    @Test
    void everyWallTimeOfAnHourThatComesTwiceTicksOnceAtItsFirstOccurrence() {
        // 02:00 and 02:30 come at 00:00 and 00:30 UTC (CEST), and again at 01:00 and 01:30 UTC (CET)
        List<Instant> ticks = ticks(CronTicks.of("0 0,30 2 * * *", BERLIN), Instant.parse("2026-10-24T12:00:00Z"), 3);

        assertThat(ticks).containsExactly(Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
                Instant.parse("2026-10-26T01:00:00Z"));
    }

    @Test
    void aTickAskedForFromInsideTheRepeatedHourSkipsItsSecondOccurrence() {
        // a schedule resumed at 01:00 UTC, 02:00 CET, when 02:30 came already as CEST
        assertThat(CronTicks.of("0 30 2 * * *", BERLIN).next(Instant.parse("2026-10-25T01:00:00Z")))
                .isEqualTo(Instant.parse("2026-10-26T01:30:00Z"));
    }

    @Test
    void springsMacrosAreRead() {
        assertThat(CronTicks.of("@daily", BERLIN).next(Instant.parse("2026-10-24T12:00:00Z")))
                .isEqualTo(Instant.parse("2026-10-24T22:00:00Z"));
        assertThat(ticks(CronTicks.of("@hourly", BERLIN), Instant.parse("2026-10-25T00:30:00Z"), 2))
                .as("every real hour, the repeated one too")
                .containsExactly(Instant.parse("2026-10-25T01:00:00Z"), Instant.parse("2026-10-25T02:00:00Z"));
    }

    @Test
    void aWallTimeThatDoesNotExistWhenTheClocksGoForwardIsSkippedThatDay() {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST, so there is no 02:30 that day; @Scheduled skips it too
        List<Instant> ticks = ticks(CronTicks.of("0 30 2 * * *", BERLIN), Instant.parse("2026-03-27T12:00:00Z"), 3);

        assertThat(ticks).containsExactly(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"),
                Instant.parse("2026-03-31T00:30:00Z"));
    }

    @Test
    void anExpressionWhoseHourIsAWildcardTicksEveryRealHourAcrossTheChange() {
        List<Instant> ticks = ticks(CronTicks.of("0 0 * * * *", BERLIN), Instant.parse("2026-10-24T23:30:00Z"), 4);

        assertThat(ticks).containsExactly(Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T01:00:00Z"),
                Instant.parse("2026-10-25T02:00:00Z"), Instant.parse("2026-10-25T03:00:00Z"));
    }

    @Test
    void aBadExpressionOrZoneIsRefusedSayingWhatIsWrong() {
        assertThatIllegalArgumentException().isThrownBy(() -> CronTicks.of("0 61 2 * * *", BERLIN))
                .withMessageContaining("MinuteOfHour").withMessageContaining("'61'");
        assertThatIllegalArgumentException().isThrownBy(() -> CronTicks.of("0 30 2 * *", BERLIN))
                .withMessageContaining("6 fields");
        assertThatIllegalArgumentException().isThrownBy(() -> CronTicks.of("0 30 2 * * *", "Mars/Olympus"))
                .withMessageContaining("time zone 'Mars/Olympus'");
        assertThat(CronTicks.of("0 30 2 * * *", BERLIN).describe()).isEqualTo("cron 0 30 2 * * * Europe/Berlin");
    }
}
