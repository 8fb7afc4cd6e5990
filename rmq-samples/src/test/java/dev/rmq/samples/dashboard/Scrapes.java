package dev.rmq.samples.dashboard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Prometheus text scrapes of one application, in the order taken, each with when it was taken. */
final class Scrapes {

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One series: a metric name and its labels. */
    record Series(String name, Map<String, String> labels) {
    }

    private final List<Long> takenMillis = new ArrayList<>();
    private final List<Map<Series, Double>> scrapes = new ArrayList<>();

    /** Adds a scrape's text, taken at {@code takenMillis}. */
    synchronized void add(long takenMillis, String text) {
        Map<Series, Double> values = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            Map<String, String> labels = new TreeMap<>();
            String name;
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                Matcher label = LABEL.matcher(line.substring(brace, line.lastIndexOf('}')));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            } else {
                name = line.substring(0, space);
            }
            values.put(new Series(name, labels), Double.parseDouble(line.substring(space + 1)));
        }
        this.takenMillis.add(takenMillis);
        this.scrapes.add(values);
    }

    synchronized int size() {
        return scrapes.size();
    }

    synchronized Map<Series, Double> scrape(int index) {
        return scrapes.get(index);
    }

    /** Seconds since the first scrape, of scrape {@code index}. */
    synchronized double secondsSinceFirst(int index) {
        return (takenMillis.get(index) - takenMillis.get(0)) / 1000.0;
    }

    synchronized double secondsBetween(int from, int to) {
        return (takenMillis.get(to) - takenMillis.get(from)) / 1000.0;
    }

    /** The latest scrape at least {@code windowSeconds} before scrape {@code index}, or the first. */
    synchronized int indexBefore(int index, long windowSeconds) {
        long limit = takenMillis.get(index) - windowSeconds * 1000;
        int from = index;
        while (from > 0 && takenMillis.get(from) > limit) {
            from--;
        }
        return from;
    }
}
