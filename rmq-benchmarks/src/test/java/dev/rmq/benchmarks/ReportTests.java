package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReportTests {

    private final Report report = new Report();

    @Test
    void countsEarlyDeliveriesOfEveryRepetitionWhereAMedianWouldShowNone() {
        report.total("lateness_ms.early", Figure.of(0, 1, 0), "Lateness", "rmq early deliveries", "");

        assertThat(report.root().path("lateness_ms").path("early").asLong()).isEqualTo(1);
        assertThat(report.root().path("lateness_ms").path("early_per_repetition").toString()).isEqualTo("[0,1,0]");
        assertThat(report.table()).contains("sum 1").contains("per rep 0, 1, 0");
    }

    @Test
    void recordsAFigureAsItsMedianWithTheRangeAndTheSamples() {
        report.figure("consume.msgs_per_s", Figure.of(90_000, 120_000, 100_000), Report.Unit.RATE, "Consume", "rmq", "");

        assertThat(report.root().path("consume").path("msgs_per_s").asDouble()).isEqualTo(100_000);
        assertThat(report.root().path("consume").path("msgs_per_s_range").toString()).isEqualTo("[90000.0,120000.0]");
        assertThat(report.table()).contains("100.0k").contains("90.0k .. 120.0k");
    }
}
