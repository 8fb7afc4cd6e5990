package dev.rmq.samples;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard check finds what a scrape lacks: a metric, a label, a label value, a label to group by. */
class DashboardQueriesTests {

    private static final String SCRAPE = """
            # HELP rmq_retries_total Messages rolled back for a retry
            # TYPE rmq_retries_total counter
            rmq_retries_total{topic="jobs",type="priority"} 0.0
            rmq_lateness_milliseconds_bucket{topic="timers",type="fixed_time",le="1.0"} 0
            rmq_consume_seconds_count{result="success",topic="jobs",type="priority"} 3
            """;

    @Test
    void aQueryWhoseMetricsAndLabelsAreAllThereLacksNothing() {
        assertThat(DashboardQueries.missing(List.of(
                "sum by (topic) (rate(rmq_retries_total{topic=~\"$topic\"}[$__rate_interval]))",
                "histogram_quantile(0.99, sum by (topic, le) (rate(rmq_lateness_milliseconds_bucket[5m])))",
                "sum by (topic, result) (rate(rmq_consume_seconds_count{result=\"success\"}[5m]))",
                "label_values(rmq_retries_total, topic)"), SCRAPE)).isEmpty();
    }

    @Test
    void eachThingAScrapeLacksIsNamed() {
        assertThat(DashboardQueries.missing(List.of("rate(rmq_dead_total[5m])"), SCRAPE))
                .singleElement().asString().startsWith("rmq_dead_total is not exported");
        assertThat(DashboardQueries.missing(List.of("rmq_retries_total{zone=\"a\"}"), SCRAPE))
                .singleElement().asString().startsWith("rmq_retries_total has no label zone");
        assertThat(DashboardQueries.missing(List.of("rmq_consume_seconds_count{result=\"dead\"}"), SCRAPE))
                .singleElement().asString().contains("no series with result=\"dead\"");
        assertThat(DashboardQueries.missing(List.of("sum by (who) (rmq_retries_total)"), SCRAPE))
                .singleElement().asString().contains("no label who to group by");
        assertThat(DashboardQueries.missing(List.of("label_values(rmq_retries_total, slot)"), SCRAPE))
                .singleElement().asString().contains("no label slot whose values to list");
    }
}
