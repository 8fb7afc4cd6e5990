package dev.rmq.faults.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the checks found: the figures of the result, the details behind them, and what failed.
 *
 * @param figures  the headline numbers, by name
 * @param details  counts and examples for people reading a failure
 * @param failures one sentence per broken invariant; empty when the run passed
 */
public record Verdict(Map<String, Object> figures, Map<String, Object> details, List<String> failures) {

    /** The most examples kept of each kind of finding. */
    static final int EXAMPLES = 20;

    Verdict() {
        this(new LinkedHashMap<>(), new LinkedHashMap<>(), new ArrayList<>());
    }

    public boolean passed() {
        return failures.isEmpty();
    }

    public long figure(String name) {
        return ((Number) Objects.requireNonNull(figures.get(name), "no figure " + name)).longValue();
    }

    void failIf(boolean broken, String failure) {
        if (broken) {
            failures.add(failure);
        }
    }

    static void example(List<String> examples, String example) {
        if (examples.size() < EXAMPLES) {
            examples.add(example);
        }
    }
}
