package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TargetsTests {

    private final Report report = new Report();
    private final Samples samples = new Samples();

    @Test
    void judgesARatioTargetOnTheMedianOfTheRounds() {
        report.figure("produce.limit_ratio", Figure.of(0.55, 0.7, 0.65), Report.Unit.RATIO, null, null, null);

        new Targets(report).judge(samples, List.of(10_000L, 1_000_000L));

        assertThat(report.table()).contains("MET   produce >= 60% of the limit").contains("0.65 (rounds 0.55 .. 0.70)");
    }

    @Test
    void comparesTheLargestBacklogWithTheSmallest() {
        for (double rate : new double[] {100_000, 110_000, 90_000}) {
            samples.add("backlog.10000", rate);
            samples.add("backlog.1000000", rate * 0.7);
        }

        new Targets(report).judge(samples, List.of(10_000L, 1_000_000L));

        assertThat(report.table()).contains("MISS  consume at 1,000,000 backlog >= 80% of at 10,000")
                .contains("70.0k / 100.0k = 0.70");
    }

    @Test
    void judgesNothingOfASectionThatDidNotRun() {
        new Targets(report).judge(samples, List.of(10_000L, 1_000_000L));

        assertThat(report.table()).contains("n/a   lateness p99 <= 10 ms").contains("n/a   Redis CPU <= 6 µs/msg")
                .doesNotContain("MET").doesNotContain("MISS");
    }
}
