package dev.rmq.benchmarks;

import java.util.List;
import java.util.Locale;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.MILLIS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * Reads the run's figures against the benchmark's targets and records each as met, missed or n/a (a section that
 * did not run). They are the bar the figures are read against, not assertions: a miss does not fail the run.
 */
final class Targets {

    private final Report report;

    Targets(Report report) {
        this.report = report;
    }

    /** Judges every target; the backlog target compares the smallest and the largest of {@code backlogs}. */
    void judge(Samples samples, List<Long> backlogs) {
        ratio("produce >= 60% of the limit, script x" + ProduceRound.PER_CALL, report.get("produce.limit_ratio"), 0.6);
        atLeast("produce >= 150k msgs/s batched", report.get("produce.msgs_per_s"), 150_000, RATE);
        ratio("consume >= 1x Redisson RStream group", report.get("consume.rstream_ratio"), 1.0);
        atLeast("consume >= 100k msgs/s", report.get("consume.msgs_per_s"), 100_000, RATE);
        atMost("lateness p99 <= 10 ms", report.get("lateness_ms.p99"), 10, MILLIS);
        atMost("lateness p99.9 <= 50 ms", report.get("lateness_ms.p999"), 50, MILLIS);
        noneEarly(report.get("lateness_ms.early"));
        redisCpu(report.get("produce.redis_cpu_us_per_msg"), report.get("consume.redis_cpu_us_per_msg"));
        atMost("memory <= 120 B/msg beyond the payload", report.get("memory_bytes_beyond_payload"), 120, BYTES);
        long smallest = backlogs.get(0);
        long largest = backlogs.get(backlogs.size() - 1);
        ratio(String.format(Locale.ROOT, "consume at %,d backlog >= 80%% of at %,d", largest, smallest),
                samples.figure("backlog." + largest), samples.figure("backlog." + smallest), 0.8);
    }

    /** Judged on the sum over the repetitions, where a median would hide one early delivery. */
    private void noneEarly(Figure early) {
        report.target("lateness: 0 early (sum over all repetitions)", early.isPresent()
                        ? String.format(Locale.ROOT, "%.0f in %d repetitions", Report.sum(early), early.samples().length) : "n/a",
                "= 0", early.isPresent() ? Report.sum(early) == 0 : null);
    }

    private void redisCpu(Figure produce, Figure consume) {
        if (produce.isPresent() && consume.isPresent()) {
            double sum = produce.median() + consume.median();
            report.value("redis_cpu_us_per_msg_produce_plus_consume", sum);
            report.target("Redis CPU <= 6 µs/msg, produce + consume", String.format(Locale.ROOT, "%.2f + %.2f = %.2f µs",
                    produce.median(), consume.median(), sum), "<= 6 µs", sum <= 6);
        } else {
            report.target("Redis CPU <= 6 µs/msg, produce + consume", "n/a", "<= 6 µs", null);
        }
    }

    /** A target on the median of per-round ratios, so that both sides of each ratio share the same moments. */
    private void ratio(String name, Figure ratios, double bar) {
        report.target(name, ratios.isPresent() ? String.format(Locale.ROOT, "%.2f (rounds %.2f .. %.2f)", ratios.median(),
                ratios.min(), ratios.max()) : "n/a", String.format(Locale.ROOT, ">= %.2f", bar),
                ratios.isPresent() ? ratios.median() >= bar : null);
    }

    /** A target on the ratio of two medians, for figures measured in different repetitions. */
    private void ratio(String name, Figure value, Figure base, double bar) {
        if (!value.isPresent() || !base.isPresent()) {
            report.target(name, "n/a", String.format(Locale.ROOT, ">= %.2f", bar), null);
            return;
        }
        double r = value.median() / base.median();
        report.target(name, String.format(Locale.ROOT, "%s / %s = %.2f", Report.format(value.median(), RATE),
                Report.format(base.median(), RATE), r), String.format(Locale.ROOT, ">= %.2f", bar), r >= bar);
    }

    private void atLeast(String name, Figure value, double bar, Report.Unit unit) {
        report.target(name, value.isPresent() ? Report.format(value.median(), unit) : "n/a",
                ">= " + Report.format(bar, unit), value.isPresent() ? value.median() >= bar : null);
    }

    /** Shows the worst repetition too: a latency or memory target is about the bad case. */
    private void atMost(String name, Figure value, double bar, Report.Unit unit) {
        report.target(name, value.isPresent() ? Report.format(value.median(), unit) + " (worst rep "
                + Report.format(value.max(), unit) + ")" : "n/a", "<= " + Report.format(bar, unit),
                value.isPresent() ? value.median() <= bar : null);
    }
}
