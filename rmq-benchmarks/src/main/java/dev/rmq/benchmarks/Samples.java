package dev.rmq.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Each figure's values, one per repetition, collected under a name. */
final class Samples {

    private final Map<String, List<Double>> values = new LinkedHashMap<>();

    void add(String name, double value) {
        values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }

    /**
     * A repetition of a throughput case: its rate under the name, its Redis CPU per message under
     * {@code <name>.cpu}, the client's under {@code <name>.jvm} and the bytes the client allocated per message under
     * {@code <name>.alloc}.
     */
    void add(String name, Measured measured) {
        add(name, measured.rate());
        add(name + ".cpu", measured.cpuMicrosPerMessage());
        add(name + ".jvm", measured.jvmCpuMicrosPerMessage());
        add(name + ".alloc", measured.jvmAllocatedBytesPerMessage());
    }

    /**
     * Adds the latest value of {@code value} over the latest of {@code base}, when there is a base above zero:
     * called once a round, it keeps a ratio whose two sides share the same moments.
     */
    void addRatio(String name, String value, String base) {
        double denominator = last(base);
        if (!Double.isNaN(denominator) && denominator > 0) {
            add(name, last(value) / denominator);
        }
    }

    /** The latest value added under the name, or NaN. */
    double last(String name) {
        List<Double> list = values.get(name);
        return list == null || list.isEmpty() ? Double.NaN : list.get(list.size() - 1);
    }

    Figure figure(String name) {
        List<Double> list = values.get(name);
        return list == null ? Figure.NONE : Figure.of(list);
    }
}
