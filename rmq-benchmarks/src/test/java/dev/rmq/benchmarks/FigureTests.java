package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class FigureTests {

    @Test
    void takesTheMiddleSampleAsTheMedianOfAnOddCount() {
        Figure f = Figure.of(5, 1, 3);

        assertThat(f.median()).isEqualTo(3);
        assertThat(f.min()).isEqualTo(1);
        assertThat(f.max()).isEqualTo(5);
        assertThat(f.samples()).containsExactly(5, 1, 3);
    }

    @Test
    void averagesTheMiddleTwoSamplesOfAnEvenCount() {
        assertThat(Figure.of(4, 1, 3, 10).median()).isEqualTo(3.5);
    }

    @Test
    void hasNoFigureWithoutSamples() {
        assertThat(Figure.of().isPresent()).isFalse();
        assertThat(Figure.of().median()).isNaN();
    }

    @Test
    void readsPercentilesByNearestRank() {
        double[] sorted = new double[1000];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = i + 1;
        }

        assertThat(Figure.percentile(sorted, 50)).isEqualTo(500);
        assertThat(Figure.percentile(sorted, 99)).isEqualTo(990);
        assertThat(Figure.percentile(sorted, 99.9)).isEqualTo(999);
        assertThat(Figure.percentile(sorted, 100)).isEqualTo(1000);
        assertThat(Figure.percentile(sorted, 0)).isEqualTo(1);
    }

    @Test
    void givesTheOnlyValueForEveryPercentileOfOneSample() {
        assertThat(Figure.percentile(new double[] {7.5}, 99.9)).isEqualTo(7.5);
    }

    @Test
    void readsTheRateFromRedisBenchmarkCsvOfRedis7AndRedis6() {
        String redis7 = """
                "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                "ZADD limit-zset __rand_int__ m:__rand_int__","812347.69","3.652","0.600","3.503","5.015","6.447","9.127"
                """;
        String redis6 = "\"EVALSHA abc 9\",\"123456.79\"\n";

        assertThat(LimitCases.parseRps(redis7)).isCloseTo(812347.69, within(0.001));
        assertThat(LimitCases.parseRps(redis6)).isCloseTo(123456.79, within(0.001));
    }

    @Test
    void carriesALongInTheFirstEightBytesOfAUniquePayload() {
        byte[] a = Payloads.carrying(1_700_000_000_123L);
        byte[] b = Payloads.carrying(1_700_000_000_123L);

        assertThat(a).hasSize(Payloads.SIZE);
        assertThat(Payloads.carried(a)).isEqualTo(1_700_000_000_123L);
        assertThat(a).isNotEqualTo(b);
    }
}
