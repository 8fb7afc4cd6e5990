package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tools.jackson.databind.JsonNode;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The PNG chart, four panels: throughput against the limit and the peers, the lateness distribution,
 * Redis CPU per message, and consume rate against the backlog. Every bar is a median.
 */
final class Charts {

    private static final Color LIMIT = new Color(0x90, 0x90, 0x90);
    private static final Color RMQ = new Color(0xD6, 0x3A, 0x2F);
    private static final Color PEER = new Color(0x3A, 0x6E, 0xB5);
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    private Charts() {
    }

    private record Bar(String label, Figure figure, Color group) {
    }

    static void write(Path file, Report report, @Nullable Lateness rmq, @Nullable Lateness delayed) {
        List<Chart<?, ?>> charts = new ArrayList<>();
        charts.add(bars("Throughput, msgs/s (median)", "k msgs/s", 1e-3, List.of(
                new Bar("ZADD", report.get("limit.zadd_pipelined_per_s"), LIMIT),
                new Bar("script x" + ProduceRound.PER_CALL, report.get("limit.produce_script_msgs_per_s"), LIMIT),
                new Bar("script x1", report.get("limit.produce_script_single_msgs_per_s"), LIMIT),
                new Bar("rmq batch", report.get("produce.msgs_per_s"), RMQ),
                new Bar("rmq single", report.get("produce_single.msgs_per_s"), RMQ),
                new Bar("RStream add", report.get("peers.redisson_rstream.produce_msgs_per_s"), PEER),
                new Bar("RDelayedQ offer", report.get("peers.redisson_delayed_queue.produce_msgs_per_s"), PEER),
                new Bar("rmq consume", report.get("consume.msgs_per_s"), RMQ),
                new Bar("rmq consume, starter", report.get("consume_starter.msgs_per_s"), RMQ),
                new Bar("RStream consume", report.get("peers.redisson_rstream.consume_msgs_per_s"), PEER),
                new Bar("RDelayedQ consume", report.get("peers.redisson_delayed_queue.consume_msgs_per_s"), PEER))));
        charts.add(lateness(rmq, delayed));
        charts.add(bars("Redis CPU per message, µs (median)", "µs/msg", 1, List.of(
                new Bar("script x1", report.get("limit.produce_script_single_redis_cpu_us_per_msg"), LIMIT),
                new Bar("script x" + ProduceRound.PER_CALL, report.get("limit.produce_script_redis_cpu_us_per_msg"), LIMIT),
                new Bar("rmq batch", report.get("produce.redis_cpu_us_per_msg"), RMQ),
                new Bar("rmq single", report.get("produce_single.redis_cpu_us_per_msg"), RMQ),
                new Bar("rmq consume", report.get("consume.redis_cpu_us_per_msg"), RMQ),
                new Bar("rmq consume, starter", report.get("consume_starter.redis_cpu_us_per_msg"), RMQ),
                new Bar("RStream add", report.get("peers.redisson_rstream.produce_redis_cpu_us_per_msg"), PEER),
                new Bar("RStream consume", report.get("peers.redisson_rstream.consume_redis_cpu_us_per_msg"), PEER),
                new Bar("RDelayedQ offer", report.get("peers.redisson_delayed_queue.produce_redis_cpu_us_per_msg"),
                        PEER),
                new Bar("RDelayedQ consume", report.get("peers.redisson_delayed_queue.consume_redis_cpu_us_per_msg"),
                        PEER))));
        charts.add(backlog(report));
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            BitmapEncoder.saveBitmap(charts, 2, 2, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static CategoryChart bars(String title, String axis, double scale, List<Bar> bars) {
        List<Bar> present = bars.stream().filter(b -> b.figure().isPresent()).toList();
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(axis).build();
        style(chart.getStyler());
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setLabelsVisible(false);
        chart.getStyler().setXAxisLabelRotation(45);
        // XChart labels only every other bar once the bars are narrower than this hint (74 px by default)
        chart.getStyler().setXAxisTickMarkSpacingHint(30);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisDecimalPattern(scale < 1 ? "#,##0" : "0.##");
        // the value goes into the category's label: overlapped series would label their zero bars too
        List<String> labels = present.stream()
                .map(b -> b.label() + " (" + (scale < 1 ? Report.format(b.figure().median(), Report.Unit.RATE)
                        : String.format(Locale.ROOT, "%.2f", b.figure().median())) + ")")
                .toList();
        for (Color group : List.of(LIMIT, RMQ, PEER)) {
            if (present.stream().noneMatch(b -> b.group().equals(group))) {
                continue;
            }
            List<Double> values = new ArrayList<>();
            for (Bar bar : present) {
                values.add(bar.group().equals(group) ? bar.figure().median() * scale : 0.0);
            }
            String name = group == LIMIT ? "the limit: redis-benchmark, rmq's send script (FCALL, or EVALSHA before Redis 7) or ZADD" : group == RMQ ? "rmq" : "Redisson 4.7 peers";
            chart.addSeries(name, labels, values).setFillColor(group);
        }
        if (present.isEmpty()) {
            chart.addSeries("no data", List.of("none"), List.of(0.0));
        }
        return chart;
    }

    /** Lateness against percentile, on a "nines" axis: 1 is p90, 2 is p99, 3 is p99.9; the last point is the max. */
    private static XYChart lateness(@Nullable Lateness rmq, @Nullable Lateness delayed) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Lateness distribution, all repetitions pooled (log scale)")
                .xAxisTitle("percentile").yAxisTitle("consume start - due, ms").build();
        style(chart.getStyler());
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(Charts::ninesLabel);
        boolean any = false;
        if (rmq != null && rmq.sortedMillis().length > 0) {
            series(chart, "rmq", rmq.sortedMillis(), RMQ);
            any = true;
        }
        if (delayed != null && delayed.sortedMillis().length > 0) {
            series(chart, "RDelayedQueue", delayed.sortedMillis(), PEER);
            any = true;
        }
        if (!any) {
            chart.addSeries("no data", new double[] {0, 1}, new double[] {1, 1});
        }
        return chart;
    }

    private static void series(XYChart chart, String name, double[] sorted, Color color) {
        double maxNines = Math.log10(sorted.length);
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (double nines = 0; nines < maxNines; nines += 0.05) {
            double p = 100 * (1 - Math.pow(10, -nines));
            xs.add(nines);
            ys.add(Math.max(0.01, Figure.percentile(sorted, p)));
        }
        xs.add(maxNines);
        ys.add(Math.max(0.01, sorted[sorted.length - 1]));
        XYSeries series = chart.addSeries(name, xs, ys);
        series.setLineColor(color);
        series.setMarker(SeriesMarkers.NONE);
    }

    private static String ninesLabel(Double nines) {
        double p = 100 * (1 - Math.pow(10, -nines));
        if (nines < 0.01) {
            return "p0";
        }
        return String.format(Locale.ROOT, p >= 99.9 ? "p%.2f" : "p%.1f", p).replaceAll("\\.?0+$", "");
    }

    private static CategoryChart backlog(Report report) {
        List<Bar> bars = new ArrayList<>();
        JsonNode list = report.root().get("backlog");
        if (list != null) {
            for (JsonNode node : list) {
                long size = node.get("size").asLong();
                double median = node.get("consume_msgs_per_s").asDouble();
                JsonNode range = node.get("consume_msgs_per_s_range");
                bars.add(new Bar(String.format(Locale.ROOT, "%,d queued", size),
                        new Figure(median, range.get(0).asDouble(), range.get(1).asDouble(), new double[] {median}), RMQ));
            }
        }
        return bars("rmq consume rate by backlog, msgs/s (median)", "k msgs/s", 1e-3, bars);
    }

    private static void style(Styler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setLegendBorderColor(Color.LIGHT_GRAY);
        styler.setChartTitleFont(styler.getChartTitleFont().deriveFont(15f));
    }
}
