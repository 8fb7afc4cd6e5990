package dev.rmq.samples.dashboard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The part of PromQL that rmq's dashboard uses, evaluated over a series of scrapes: selectors with {@code =} and
 * {@code =~} matchers, {@code rate} and {@code increase} over a window, {@code sum by} and {@code max by},
 * {@code histogram_quantile}, and one vector divided by another with the same labels. Anything else is refused, so
 * that a query the dashboard gains is either understood or fails the rendering loudly.
 */
final class PromQuery {

    /** An instant vector: each series's labels and value. */
    record Vector(Map<Map<String, String>, Double> series) {
    }

    private interface Node {
        Vector at(Scrapes scrapes, int index);
    }

    private final String text;
    private final Node root;
    private int at;

    private PromQuery(String text) {
        this.text = text;
        this.root = expression();
        skipSpace();
        if (at != text.length()) {
            throw error("unexpected text");
        }
    }

    /** Parses {@code query}, in which {@code $topic} matches every topic and {@code $__rate_interval} is {@code window}. */
    static PromQuery parse(String query, String window) {
        return new PromQuery(query.replace("$__rate_interval", window).replace("$topic", ".*"));
    }

    /** The query's value at scrape {@code index}. */
    Vector at(Scrapes scrapes, int index) {
        return root.at(scrapes, index);
    }

    private Node expression() {
        Node left = term();
        skipSpace();
        if (peek('/')) {
            at++;
            Node right = term();
            return (scrapes, index) -> divide(left.at(scrapes, index), right.at(scrapes, index));
        }
        return left;
    }

    private Node term() {
        skipSpace();
        String word = word();
        skipSpace();
        switch (word) {
            case "sum", "max" -> {
                expectWord("by");
                List<String> by = labels();
                expect('(');
                Node inner = expression();
                expect(')');
                return (scrapes, index) -> aggregate(word, by, inner.at(scrapes, index));
            }
            case "rate", "increase" -> {
                expect('(');
                Selector selector = selector(word());
                expect('[');
                long windowSeconds = duration();
                expect(']');
                expect(')');
                boolean perSecond = word.equals("rate");
                return (scrapes, index) -> change(scrapes, index, selector, windowSeconds, perSecond);
            }
            case "histogram_quantile" -> {
                expect('(');
                double quantile = number();
                expect(',');
                Node buckets = expression();
                expect(')');
                return (scrapes, index) -> quantile(quantile, buckets.at(scrapes, index));
            }
            default -> {
                Selector selector = selector(word);
                return (scrapes, index) -> new Vector(selector.pick(scrapes.scrape(index)));
            }
        }
    }

    /** A metric name and its label matchers. */
    private record Selector(String name, Map<String, Pattern> matchers) {

        Map<Map<String, String>, Double> pick(Map<Scrapes.Series, Double> scrape) {
            Map<Map<String, String>, Double> picked = new LinkedHashMap<>();
            scrape.forEach((series, value) -> {
                if (series.name().equals(name) && matchers.entrySet().stream().allMatch(m ->
                        m.getValue().matcher(series.labels().getOrDefault(m.getKey(), "")).matches())) {
                    picked.put(series.labels(), value);
                }
            });
            return picked;
        }
    }

    private Selector selector(String name) {
        if (!name.startsWith("rmq_")) {
            throw error("a metric name, or a function this renderer knows, expected; was '" + name + "'");
        }
        Map<String, Pattern> matchers = new LinkedHashMap<>();
        skipSpace();
        if (peek('{')) {
            at++;
            while (true) {
                skipSpace();
                if (peek('}')) {
                    at++;
                    break;
                }
                String label = word();
                boolean regex = text.startsWith("=~", at);
                at += regex ? 2 : 1;
                String value = quoted();
                matchers.put(label, Pattern.compile(regex ? value : Pattern.quote(value)));
                skipSpace();
                if (peek(',')) {
                    at++;
                }
            }
        }
        return new Selector(name, matchers);
    }

    private static Vector change(Scrapes scrapes, int index, Selector selector, long windowSeconds,
                                 boolean perSecond) {
        int from = scrapes.indexBefore(index, windowSeconds);
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        if (from == index) {
            return new Vector(out);
        }
        Map<Map<String, String>, Double> before = selector.pick(scrapes.scrape(from));
        double seconds = scrapes.secondsBetween(from, index);
        selector.pick(scrapes.scrape(index)).forEach((labels, value) -> {
            Double earlier = before.get(labels);
            if (earlier != null) {
                // a counter that went down was reset: what it counted since is its value
                double delta = value >= earlier ? value - earlier : value;
                out.put(labels, perSecond ? delta / seconds : delta);
            }
        });
        return new Vector(out);
    }

    private static Vector aggregate(String how, List<String> by, Vector inner) {
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        inner.series().forEach((labels, value) -> {
            Map<String, String> group = new TreeMap<>();
            by.forEach(label -> group.put(label, labels.getOrDefault(label, "")));
            out.merge(group, value, how.equals("sum") ? Double::sum : Math::max);
        });
        return new Vector(out);
    }

    /** Prometheus's histogram_quantile: linear within the bucket the rank falls in; no value for an empty one. */
    private static Vector quantile(double q, Vector buckets) {
        Map<Map<String, String>, TreeMap<Double, Double>> byGroup = new HashMap<>();
        buckets.series().forEach((labels, count) -> {
            Map<String, String> group = new TreeMap<>(labels);
            String le = group.remove("le");
            double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            byGroup.computeIfAbsent(group, g -> new TreeMap<>()).put(bound, count);
        });
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        byGroup.forEach((group, cumulative) -> {
            double total = cumulative.lastEntry().getValue();
            if (total <= 0) {
                return;
            }
            double rank = q * total;
            double lower = 0;
            double below = 0;
            for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
                if (bucket.getValue() >= rank) {
                    double upper = bucket.getKey().isInfinite() ? lower : bucket.getKey();
                    double within = bucket.getValue() - below;
                    out.put(group, within <= 0 ? upper : lower + (upper - lower) * (rank - below) / within);
                    return;
                }
                lower = bucket.getKey();
                below = bucket.getValue();
            }
        });
        return new Vector(out);
    }

    private static Vector divide(Vector left, Vector right) {
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        left.series().forEach((labels, value) -> {
            Double divisor = right.series().get(labels);
            if (divisor != null && divisor != 0) {
                out.put(labels, value / divisor);
            }
        });
        return new Vector(out);
    }

    // ---- reading the text ------------------------------------------------------------------------------------

    private List<String> labels() {
        expect('(');
        List<String> labels = new ArrayList<>();
        while (true) {
            skipSpace();
            labels.add(word());
            skipSpace();
            if (peek(')')) {
                at++;
                return labels;
            }
            expect(',');
        }
    }

    private long duration() {
        int start = at;
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        long amount = Long.parseLong(text.substring(start, at));
        char unit = text.charAt(at++);
        return switch (unit) {
            case 's' -> amount;
            case 'm' -> amount * 60;
            case 'h' -> amount * 3600;
            default -> throw error("a window in s, m or h expected");
        };
    }

    private double number() {
        skipSpace();
        int start = at;
        while (at < text.length() && (Character.isDigit(text.charAt(at)) || text.charAt(at) == '.')) {
            at++;
        }
        return Double.parseDouble(text.substring(start, at));
    }

    private String quoted() {
        expect('"');
        int end = text.indexOf('"', at);
        String value = text.substring(at, end);
        at = end + 1;
        return value;
    }

    private String word() {
        skipSpace();
        int start = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
        }
        if (start == at) {
            throw error("a name expected");
        }
        return text.substring(start, at);
    }

    private void expectWord(String expected) {
        if (!word().equals(expected)) {
            throw error("'" + expected + "' expected");
        }
    }

    private void expect(char expected) {
        skipSpace();
        if (!peek(expected)) {
            throw error("'" + expected + "' expected");
        }
        at++;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + at + " of: " + text);
    }
}
