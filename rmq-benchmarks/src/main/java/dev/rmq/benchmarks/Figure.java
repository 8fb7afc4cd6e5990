package dev.rmq.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * One measured figure: the median of its repetitions and their range.
 *
 * @param median  the median of the samples (the mean of the middle two for an even count)
 * @param min     the smallest sample
 * @param max     the largest sample
 * @param samples every repetition's value, in the order measured
 */
record Figure(double median, double min, double max, double[] samples) {

    static final Figure NONE = new Figure(Double.NaN, Double.NaN, Double.NaN, new double[0]);

    static Figure of(List<Double> samples) {
        return of(samples.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static Figure of(double... samples) {
        if (samples.length == 0) {
            return NONE;
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        return new Figure(median(sorted), sorted[0], sorted[sorted.length - 1], samples.clone());
    }

    boolean isPresent() {
        return samples.length > 0;
    }

    /** The median of sorted values. */
    static double median(double[] sorted) {
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * The nearest-rank percentile of sorted values: the smallest value with at least {@code p} percent of
     * the values at or below it ({@code p} in 0..100; 100 gives the maximum).
     */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        if (p <= 0) {
            return sorted[0];
        }
        // the epsilon keeps 99.9 / 100 * 1000 (999.0000000000001 in doubles) at rank 999
        int rank = (int) Math.ceil(p * sorted.length / 100.0 - 1e-9);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    @Override
    public String toString() {
        return median + " [" + min + ", " + max + "]";
    }
}
