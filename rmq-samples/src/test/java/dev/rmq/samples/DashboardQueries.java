package dev.rmq.samples;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of a Grafana dashboard read against a Prometheus scrape: every metric a query names must be exported,
 * with every label it matches or groups by, and every label value it asks for exactly. Variables ({@code $topic})
 * match any value.
 */
final class DashboardQueries {

    private static final Pattern SELECTOR = Pattern.compile("\\b(rmq_[a-z_]+)(\\{([^}]*)})?");
    private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((rmq_\\w+),\\s*(\\w+)\\)");

    private DashboardQueries() {
    }

    /** The queries of every panel's targets and of every query variable. */
    static List<String> of(JsonNode dashboard) {
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString().equals("query")) {
                queries.add(variable.path("query").path("query").asString());
            }
        }
        return queries;
    }

    /** What the scrape lacks that the queries need, one line each; empty when it has it all. */
    static List<String> missing(List<String> queries, String scrape) {
        Map<String, List<Map<String, String>>> series = series(scrape);
        Set<String> missing = new LinkedHashSet<>();
        for (String query : queries) {
            List<String> names = new ArrayList<>();
            Matcher selector = SELECTOR.matcher(query);
            while (selector.find()) {
                String name = selector.group(1);
                names.add(name);
                if (!series.containsKey(name)) {
                    missing.add(name + " is not exported, in: " + query);
                    continue;
                }
                Matcher matcher = MATCHER.matcher(selector.group(3) == null ? "" : selector.group(3));
                while (matcher.find()) {
                    String label = matcher.group(1), op = matcher.group(2), value = matcher.group(3);
                    if (series.get(name).stream().noneMatch(labels -> labels.containsKey(label))) {
                        missing.add(name + " has no label " + label + ", in: " + query);
                    } else if (op.equals("=") && !value.startsWith("$") && series.get(name).stream()
                            .noneMatch(labels -> value.equals(labels.get(label)))) {
                        missing.add(name + " has no series with " + label + "=\"" + value + "\", in: " + query);
                    }
                }
            }
            Matcher by = BY.matcher(query);
            while (by.find()) {
                for (String label : by.group(1).split(",")) {
                    String wanted = label.trim();
                    for (String name : names) {
                        boolean applies = !wanted.equals("le") || name.endsWith("_bucket");
                        if (applies && series.containsKey(name)
                                && series.get(name).stream().noneMatch(labels -> labels.containsKey(wanted))) {
                            missing.add(name + " has no label " + wanted + " to group by, in: " + query);
                        }
                    }
                }
            }
            Matcher values = LABEL_VALUES.matcher(query);
            while (values.find()) {
                String name = values.group(1), label = values.group(2);
                if (series.containsKey(name) && series.get(name).stream().noneMatch(l -> l.containsKey(label))) {
                    missing.add(name + " has no label " + label + " whose values to list, in: " + query);
                }
            }
        }
        return List.copyOf(missing);
    }

    /** Each metric of a Prometheus text scrape with the label sets of its series. */
    static Map<String, List<Map<String, String>>> series(String scrape) {
        Map<String, List<Map<String, String>>> series = new HashMap<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            int end = brace >= 0 && brace < space ? brace : space;
            Map<String, String> labels = new HashMap<>();
            if (end == brace) {
                Matcher matcher = MATCHER.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
                while (matcher.find()) {
                    labels.put(matcher.group(1), matcher.group(3));
                }
            }
            series.computeIfAbsent(line.substring(0, end), name -> new ArrayList<>()).add(labels);
        }
        return series;
    }
}
