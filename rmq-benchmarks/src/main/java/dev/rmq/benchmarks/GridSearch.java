package dev.rmq.benchmarks;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.ToDoubleFunction;

/**
 * Finds a case's best setting: tries each candidate once, logs its rate, records every candidate in the JSON
 * (so that a reader sees what the chosen setting beat) and returns the fastest. A tie keeps the earlier one.
 *
 * @param <S> the setting
 */
final class GridSearch<S> {

    /** A setting and the rate its trial reached. */
    record Candidate<S>(S setting, double rate) {
    }

    private final Report report;
    private final String path;
    private final String logFormat;
    private final BiConsumer<ObjectNode, S> describe;

    /**
     * @param path      where the candidates go in the JSON, as an array
     * @param logFormat the progress line of one candidate, given the setting and its rate
     * @param describe  writes a setting's fields into its candidate object (which gets {@code msgs_per_s} after them)
     */
    GridSearch(Report report, String path, String logFormat, BiConsumer<ObjectNode, S> describe) {
        this.report = report;
        this.path = path;
        this.logFormat = logFormat;
        this.describe = describe;
    }

    /** Runs {@code trial} on each candidate in turn; empty when no candidate gave a rate. */
    Optional<Candidate<S>> best(List<S> candidates, ToDoubleFunction<S> trial) {
        ArrayNode tried = report.array();
        Candidate<S> best = null;
        for (S setting : candidates) {
            double rate = trial.applyAsDouble(setting);
            Log.info(logFormat, setting, rate);
            ObjectNode node = tried.addObject();
            describe.accept(node, setting);
            node.put("msgs_per_s", Math.round(rate));
            if (rate > (best == null ? -1 : best.rate())) {
                best = new Candidate<>(setting, rate);
            }
        }
        report.value(path, tried);
        return Optional.ofNullable(best);
    }
}
