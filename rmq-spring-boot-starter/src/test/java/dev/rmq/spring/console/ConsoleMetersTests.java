package dev.rmq.spring.console;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The lateness p99 of the deliveries between two readings of a cumulative histogram. */
class ConsoleMetersTests {

    private static final double[] BOUNDS = {1, 2, 5, 10, 50};

    private static ConsoleMeters.Totals totals(double... cumulative) {
        return new ConsoleMeters.Totals(0, 0, BOUNDS, cumulative);
    }

    @Test
    void isTheBoundOfTheBucketThatHoldsThe99thPercentileOfTheNewDeliveries() {
        // before: 1,000 deliveries, all within 1 ms; since: 100 more, 98 within 2 ms, 1 at 10 ms, 1 at 50 ms
        ConsoleMeters.Totals before = totals(1000, 1000, 1000, 1000, 1000);
        ConsoleMeters.Totals now = totals(1000, 1098, 1098, 1099, 1100);
        assertThat(ConsoleMeters.latenessP99(before, now)).isEqualTo(10);
        assertThat(ConsoleMeters.latenessP99(now, now)).as("nothing delivered since").isEqualTo(-1);
        assertThat(ConsoleMeters.latenessP99(new ConsoleMeters.Totals(0, 0, new double[0], new double[0]), now))
                .as("no histogram before").isEqualTo(-1);
    }
}
