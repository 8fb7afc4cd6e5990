package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One lateness run: every message's consume start minus its due time, and what went wrong on the way.
 *
 * @param sortedMillis  the lateness of each message consumed, in ms, ascending
 * @param early         deliveries before the due time
 * @param sent          messages the run sent
 * @param consumed      messages the consumers took
 * @param sendErrors    sends refused
 * @param clockOffsetMs the Redis clock minus the local one (0 where lateness is read by the local clock)
 * @param firstError    the first refused send's error, or null
 * @param cost          what Redis and this JVM spent on the run; null for runs pooled into one
 */
record Lateness(double[] sortedMillis, int early, int sent, int consumed, int sendErrors, double clockOffsetMs,
                @Nullable String firstError, RedisProbe.@Nullable Cost cost) {

    /** The first {@code n} values of {@code lateMicros}, in ms, ascending. */
    static double[] sortedMillis(long[] lateMicros, int n) {
        double[] millis = new double[n];
        for (int i = 0; i < n; i++) {
            millis[i] = lateMicros[i] / 1000.0;
        }
        Arrays.sort(millis);
        return millis;
    }

    /** All the runs as one, for the chart's distribution; null when there are none. */
    static @Nullable Lateness pool(List<Lateness> runs) {
        if (runs.isEmpty()) {
            return null;
        }
        double[] all = runs.stream().flatMapToDouble(r -> Arrays.stream(r.sortedMillis())).sorted().toArray();
        return new Lateness(all, runs.stream().mapToInt(Lateness::early).sum(),
                runs.stream().mapToInt(Lateness::sent).sum(), runs.stream().mapToInt(Lateness::consumed).sum(),
                runs.stream().mapToInt(Lateness::sendErrors).sum(), 0, null, null);
    }

    /** The progress line's account of the run. */
    String summary() {
        return String.format(Locale.ROOT, "p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f ms, %d early, %d/%d consumed",
                percentile(50), percentile(99), percentile(99.9), percentile(100), early, consumed, sent);
    }

    /** The nearest-rank percentile, {@code p} in 0..100. */
    double percentile(double p) {
        return Figure.percentile(sortedMillis, p);
    }
}
