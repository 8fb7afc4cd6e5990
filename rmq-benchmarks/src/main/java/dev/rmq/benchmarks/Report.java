package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Collects the results: a JSON tree (each figure's median under its name, with {@code <name>_range} and
 * {@code <name>_samples} beside it), the rows of the stdout table, and the targets they are read against.
 */
final class Report {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ObjectNode root = JSON.createObjectNode();
    private final Map<String, List<Row>> sections = new LinkedHashMap<>();
    private final List<Target> targets = new ArrayList<>();
    private final Map<String, Figure> figures = new LinkedHashMap<>();

    /**
     * One line of the stdout table: the figure's median and range, or, for a {@code total}, the sum of its
     * repetitions and each repetition's value.
     */
    record Row(String label, Figure figure, Unit unit, String note, boolean total) {
    }

    /** A target of the benchmark, and whether this run met it. */
    record Target(String name, String measured, String bar, @Nullable Boolean met) {
    }

    enum Unit {
        RATE("msgs/s"), MICROS("µs/msg"), BYTES("B/msg"), MILLIS("ms"), SECONDS("s"), COUNT(""), RATIO("×"),
        CALLS("calls/msg");

        final String label;

        Unit(String label) {
            this.label = label;
        }
    }

    ObjectNode root() {
        return root;
    }

    /** Records a figure at a dotted JSON path and, when {@code section} is given, as a table row. */
    void figure(String path, Figure figure, Unit unit, @Nullable String section, @Nullable String label,
                @Nullable String note) {
        put(path, figure, (parent, name) -> {
            parent.put(name, round(figure.median()));
            ArrayNode range = parent.putArray(name + "_range");
            range.add(round(figure.min()));
            range.add(round(figure.max()));
            ArrayNode samples = parent.putArray(name + "_samples");
            for (double s : figure.samples()) {
                samples.add(round(s));
            }
        });
        if (section != null) {
            row(section, Objects.requireNonNull(label, "a figure with a section needs its row's label"), figure, unit, note);
        }
    }

    /**
     * Records a count of events (early deliveries, lost messages) as the sum over the repetitions, with
     * {@code <name>_per_repetition} beside it: one event in one repetition must show, where a median would hide it.
     */
    void total(String path, Figure perRepetition, String section, String label, String note) {
        put(path, perRepetition, (parent, name) -> {
            parent.put(name, Math.round(sum(perRepetition)));
            ArrayNode each = parent.putArray(name + "_per_repetition");
            for (double s : perRepetition.samples()) {
                each.add(Math.round(s));
            }
        });
        if (section != null) {
            row(section, new Row(label, perRepetition, Unit.COUNT, note == null ? "" : note, true));
        }
    }

    /** Keeps the figure for {@link #get} and writes it at the path: null when it has no samples, else as told. */
    private void put(String path, Figure figure, BiConsumer<ObjectNode, String> present) {
        figures.put(path, figure);
        ObjectNode parent = parent(path);
        String name = leaf(path);
        if (figure.isPresent()) {
            present.accept(parent, name);
        } else {
            parent.putNull(name);
        }
    }

    static double sum(Figure figure) {
        double sum = 0;
        for (double s : figure.samples()) {
            sum += s;
        }
        return sum;
    }

    void row(String section, String label, Figure figure, Unit unit, @Nullable String note) {
        row(section, new Row(label, figure, unit, note == null ? "" : note, false));
    }

    private void row(String section, Row row) {
        sections.computeIfAbsent(section, s -> new ArrayList<>()).add(row);
    }

    Figure get(String path) {
        return figures.getOrDefault(path, Figure.NONE);
    }

    void value(String path, @Nullable Object value) {
        ObjectNode parent = parent(path);
        String name = leaf(path);
        if (value == null) {
            parent.putNull(name);
        } else if (value instanceof JsonNode node) {
            parent.set(name, node);
        } else if (value instanceof Integer i) {
            parent.put(name, i);
        } else if (value instanceof Long l) {
            parent.put(name, l);
        } else if (value instanceof Double d) {
            parent.put(name, round(d));
        } else if (value instanceof Boolean b) {
            parent.put(name, b);
        } else {
            parent.put(name, String.valueOf(value));
        }
    }

    ObjectNode object() {
        return JSON.createObjectNode();
    }

    ArrayNode array() {
        return JSON.createArrayNode();
    }

    void target(String name, String measured, String bar, @Nullable Boolean met) {
        targets.add(new Target(name, measured, bar, met));
    }

    void writeJson(Path file) {
        ArrayNode list = root.putArray("targets");
        for (Target t : targets) {
            ObjectNode node = list.addObject();
            node.put("name", t.name());
            node.put("measured", t.measured());
            node.put("target", t.bar());
            if (t.met() == null) {
                node.putNull("met");
            } else {
                node.put("met", t.met());
            }
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The readable table: every section's rows with median, range and notes, then the targets. */
    String table() {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<Row>> section : sections.entrySet()) {
            out.append('\n').append(section.getKey()).append('\n');
            out.append(String.format(Locale.ROOT, "  %-46s %12s  %-25s %-10s %s%n", "", "median", "range", "unit", ""));
            for (Row row : section.getValue()) {
                Figure f = row.figure();
                String median;
                String range;
                if (row.total()) {
                    median = f.isPresent() ? "sum " + format(sum(f), row.unit()) : "n/a";
                    StringBuilder each = new StringBuilder();
                    for (double s : f.samples()) {
                        each.append(each.length() == 0 ? "per rep " : ", ").append(format(s, row.unit()));
                    }
                    range = each.toString();
                } else {
                    median = f.isPresent() ? format(f.median(), row.unit()) : "n/a";
                    range = f.isPresent() && f.samples().length > 1
                            ? format(f.min(), row.unit()) + " .. " + format(f.max(), row.unit()) : "";
                }
                out.append(String.format(Locale.ROOT, "  %-46s %12s  %-25s %-10s %s%n", row.label(), median, range,
                        row.unit().label, row.note()));
            }
        }
        out.append("\nTargets (a 2-core machine, ratios measured in this run)\n");
        for (Target t : targets) {
            String status = t.met() == null ? "n/a " : t.met() ? "MET " : "MISS";
            out.append(String.format(Locale.ROOT, "  %s  %-48s %-30s %s%n", status, t.name(), t.measured(), t.bar()));
        }
        return out.toString();
    }

    static String format(double value, Unit unit) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return switch (unit) {
            case RATE -> value >= 1e6 ? String.format(Locale.ROOT, "%.2fM", value / 1e6)
                    : value >= 1e3 ? String.format(Locale.ROOT, "%.1fk", value / 1e3) : String.format(Locale.ROOT, "%.0f", value);
            case MICROS, CALLS, RATIO -> String.format(Locale.ROOT, "%.3f", value);
            case MILLIS, SECONDS -> String.format(Locale.ROOT, "%.2f", value);
            case BYTES, COUNT -> String.format(Locale.ROOT, "%.0f", value);
        };
    }

    private ObjectNode parent(String path) {
        String[] parts = path.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = node.get(parts[i]);
            node = child instanceof ObjectNode object ? object : node.putObject(parts[i]);
        }
        return node;
    }

    private static String leaf(String path) {
        return path.substring(path.lastIndexOf('.') + 1);
    }

    private static double round(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return value;
        }
        double scale = Math.abs(value) >= 1000 ? 1 : 1000;
        return Math.round(value * scale) / scale;
    }
}
