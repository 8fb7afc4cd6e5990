package dev.rmq.samples.dashboard;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The dashboard's PromQL, evaluated over hand-made scrapes whose answers are known. */
class PromQueryTests {

    private final Scrapes scrapes = new Scrapes();

    PromQueryTests() {
        scrapes.add(0, """
                rmq_send_messages_total{result="success",topic="a"} 10
                rmq_send_messages_total{result="success",topic="b"} 0
                rmq_send_messages_total{result="failure",topic="a"} 5
                rmq_backlog_messages{instance="1",topic="a"} 3
                rmq_lateness_milliseconds_bucket{topic="a",le="10.0"} 0
                rmq_lateness_milliseconds_bucket{topic="a",le="100.0"} 0
                rmq_lateness_milliseconds_bucket{topic="a",le="+Inf"} 0
                """);
        scrapes.add(10_000, """
                rmq_send_messages_total{result="success",topic="a"} 60
                rmq_send_messages_total{result="success",topic="b"} 20
                rmq_send_messages_total{result="failure",topic="a"} 5
                rmq_backlog_messages{instance="1",topic="a"} 7
                rmq_backlog_messages{instance="2",topic="a"} 9
                rmq_lateness_milliseconds_bucket{topic="a",le="10.0"} 50
                rmq_lateness_milliseconds_bucket{topic="a",le="100.0"} 100
                rmq_lateness_milliseconds_bucket{topic="a",le="+Inf"} 100
                """);
    }

    private Map<Map<String, String>, Double> last(String query) {
        return PromQuery.parse(query, "10s").at(scrapes, 1).series();
    }

    @Test
    void aRateIsTheIncreaseOverTheWindowPerSecondSummedByTheLabelsAsked() {
        assertThat(last("sum by (topic) (rate(rmq_send_messages_total{topic=~\"$topic\", result=\"success\"}"
                + "[$__rate_interval]))")).containsExactlyInAnyOrderEntriesOf(Map.of(Map.of("topic", "a"), 5.0,
                Map.of("topic", "b"), 2.0));
        assertThat(last("sum by (topic) (increase(rmq_send_messages_total{result=\"failure\"}[10s]))"))
                .containsExactly(Map.entry(Map.of("topic", "a"), 0.0));
    }

    @Test
    void aGaugeTakesTheHighestOverInstances() {
        assertThat(last("max by (topic) (rmq_backlog_messages{topic=~\"$topic\"})"))
                .containsExactly(Map.entry(Map.of("topic", "a"), 9.0));
    }

    @Test
    void aQuantileIsInterpolatedInTheBucketItsRankFallsIn() {
        // 50 of 100 at most 10 ms, the other 50 between 10 and 100: the 99th is at 10 + 90 * 49 / 50
        double p99 = last("histogram_quantile(0.99, sum by (topic, le) (rate(rmq_lateness_milliseconds_bucket"
                + "{topic=~\"$topic\"}[$__rate_interval])))").get(Map.of("topic", "a"));
        assertThat(p99).isCloseTo(98.2, within(1e-9));
        assertThat(last("histogram_quantile(0.5, sum by (topic, le) (rate(rmq_lateness_milliseconds_bucket[10s])))")
                .get(Map.of("topic", "a"))).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void aRatioMatchesSeriesByTheirLabelsAndLeavesOutADivisionByZero() {
        assertThat(last("sum by (topic) (rate(rmq_send_messages_total{result=\"success\"}[10s])) / sum by (topic)"
                + " (rate(rmq_send_messages_total{result=\"success\"}[10s]))")).containsOnlyKeys(Map.of("topic", "a"),
                Map.of("topic", "b"));
        assertThat(last("sum by (topic) (rate(rmq_send_messages_total{result=\"failure\"}[10s])) / sum by (topic)"
                + " (rate(rmq_send_messages_total{result=\"failure\"}[10s]))")).isEmpty();
    }

    @Test
    void theFirstScrapeHasNoRateAndAQueryItCannotReadIsRefused() {
        assertThat(PromQuery.parse("sum by (topic) (rate(rmq_send_messages_total[10s]))", "10s").at(scrapes, 0)
                .series()).isEmpty();
        assertThatThrownBy(() -> PromQuery.parse("avg(rmq_backlog_messages)", "10s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metric name");
    }
}
