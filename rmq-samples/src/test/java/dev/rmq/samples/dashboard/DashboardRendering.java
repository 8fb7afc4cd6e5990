package dev.rmq.samples.dashboard;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws a Grafana dashboard's time-series panels as one SVG, from its own queries evaluated over scrapes of an
 * application: what the dashboard shows, without a Grafana to run it. Panels keep their place and size on
 * Grafana's 24-column grid; each series is a line, named by its target's legend format.
 */
public final class DashboardRendering {

    private static final int WIDTH = 1200;
    private static final int ROW = 30;
    private static final int GAP = 6;
    private static final String[] COLOURS = {"#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2",
            "#b877d9", "#96d98d", "#ffb357", "#ca95e5"};
    private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    /** One drawn line: its name, and its value at each scrape where it had one (NaN where not). */
    public record Line(String name, double[] values) {
    }

    /** One panel as drawn: its title and lines. */
    public record Panel(String title, String unit, List<Line> lines) {
    }

    private final Scrapes scrapes = new Scrapes();

    /** Adds a scrape of the application's Prometheus endpoint, taken at {@code takenMillis}. */
    public void add(long takenMillis, String scrapeText) {
        scrapes.add(takenMillis, scrapeText);
    }

    public int scrapes() {
        return scrapes.size();
    }

    /** Each time-series panel of {@code dashboard}, its queries evaluated at every scrape, rates over {@code window}. */
    public List<Panel> panels(JsonNode dashboard, String window) {
        List<Panel> panels = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asString().equals("timeseries")) {
                continue;
            }
            Map<String, double[]> lines = new LinkedHashMap<>();
            for (JsonNode target : panel.path("targets")) {
                PromQuery query = PromQuery.parse(target.path("expr").asString(), window);
                String legend = target.path("legendFormat").asString();
                for (int i = 0; i < scrapes.size(); i++) {
                    int index = i;
                    query.at(scrapes, i).series().forEach((labels, value) -> {
                        double[] values = lines.computeIfAbsent(legend(legend, labels), name -> {
                            double[] empty = new double[scrapes.size()];
                            java.util.Arrays.fill(empty, Double.NaN);
                            return empty;
                        });
                        values[index] = value;
                    });
                }
            }
            List<Line> drawn = new ArrayList<>();
            lines.forEach((name, values) -> drawn.add(new Line(name, values)));
            panels.add(new Panel(panel.path("title").asString(),
                    panel.path("fieldConfig").path("defaults").path("unit").asString(""), drawn));
        }
        return panels;
    }

    /** The SVG of {@code dashboard}, headed by {@code caption}. */
    public String svg(JsonNode dashboard, String window, String caption) {
        List<Panel> panels = panels(dashboard, window);
        int rows = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            JsonNode grid = panel.path("gridPos");
            rows = Math.max(rows, grid.path("y").asInt() + grid.path("h").asInt());
        }
        int top = 40;
        int height = top + rows * ROW + GAP;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"Inter, Helvetica, Arial, sans-serif\">%n", WIDTH, height,
                WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#111217\"/>%n", WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"26\" fill=\"#ccccdc\" font-size=\"16\">%s</text>%n",
                GAP + 4, escape(dashboard.path("title").asString() + " — " + caption)));
        int drawn = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asString().equals("timeseries")) {
                continue;
            }
            JsonNode grid = panel.path("gridPos");
            double x = grid.path("x").asInt() * WIDTH / 24.0 + GAP;
            double y = top + grid.path("y").asInt() * ROW + GAP;
            double w = grid.path("w").asInt() * WIDTH / 24.0 - GAP * 2;
            double h = grid.path("h").asInt() * ROW - GAP * 2;
            panel(svg, panels.get(drawn++), x, y, w, h);
        }
        return svg.append("</svg>\n").toString();
    }

    private void panel(StringBuilder svg, Panel panel, double x, double y, double w, double h) {
        svg.append(String.format(Locale.ROOT, "<g transform=\"translate(%.1f %.1f)\">%n", x, y));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%.1f\" height=\"%.1f\" rx=\"3\" fill=\"#181b1f\""
                + " stroke=\"#2c3235\"/>%n", w, h));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"20\" fill=\"#ccccdc\" font-size=\"13\""
                + " font-weight=\"500\">%s</text>%n", escape(panel.title())));
        double plotX = 56;
        double plotY = 34;
        double plotW = w - plotX - 12;
        int legendRows = (panel.lines().size() + 1) / 2;
        double plotH = h - plotY - 26 - legendRows * 15;
        double max = 0;
        for (Line line : panel.lines()) {
            for (double value : line.values()) {
                if (!Double.isNaN(value)) {
                    max = Math.max(max, value);
                }
            }
        }
        max = max <= 0 ? 1 : niceCeiling(max);
        for (int tick = 0; tick <= 4; tick++) {
            double ty = plotY + plotH - plotH * tick / 4;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                    + " stroke=\"#2c3235\"/>%n", plotX, ty, plotX + plotW, ty));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#8e8e8e\" font-size=\"10\""
                    + " text-anchor=\"end\">%s</text>%n", plotX - 6, ty + 3, format(max * tick / 4, panel.unit())));
        }
        double seconds = Math.max(1, scrapes.secondsSinceFirst(scrapes.size() - 1));
        for (int mark = 0; mark <= 4; mark++) {
            double tx = plotX + plotW * mark / 4;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#8e8e8e\" font-size=\"10\""
                    + " text-anchor=\"middle\">%ds</text>%n", tx, plotY + plotH + 13, Math.round(seconds * mark / 4)));
        }
        for (int i = 0; i < panel.lines().size(); i++) {
            Line line = panel.lines().get(i);
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            for (int s = 0; s < line.values().length; s++) {
                double value = line.values()[s];
                if (Double.isNaN(value)) {
                    pen = false;
                    continue;
                }
                double px = plotX + plotW * scrapes.secondsSinceFirst(s) / seconds;
                double py = plotY + plotH - plotH * value / max;
                path.append(String.format(Locale.ROOT, "%s%.1f %.1f ", pen ? "L" : "M", px, py));
                pen = true;
            }
            svg.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>%n",
                    path.toString().trim(), colour));
            double lx = 10 + (i % 2) * (w / 2);
            double ly = h - 12 - (legendRows - 1 - i / 2) * 15;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%.1f\" fill=\"#ccccdc\" font-size=\"10\">%s</text>%n", lx, ly - 4, colour,
                    lx + 16, ly, escape(line.name())));
        }
        if (panel.lines().isEmpty()) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#8e8e8e\" font-size=\"12\""
                    + " text-anchor=\"middle\">No data</text>%n", plotX + plotW / 2, plotY + plotH / 2));
        }
        svg.append("</g>\n");
    }

    private static String legend(String format, Map<String, String> labels) {
        Matcher matcher = LEGEND.matcher(format);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(out, Matcher.quoteReplacement(labels.getOrDefault(matcher.group(1), "")));
        }
        matcher.appendTail(out);
        return out.toString().isBlank() ? labels.toString() : out.toString();
    }

    /** 1, 2 or 5 times a power of ten, at least {@code value}. */
    private static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String format(double value, String unit) {
        String number = value >= 100 || value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value)
                : String.format(Locale.ROOT, "%.2g", value);
        return switch (unit) {
            case "ops" -> number + "/s";
            case "s" -> number + " s";
            case "ms" -> number + " ms";
            default -> number;
        };
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
