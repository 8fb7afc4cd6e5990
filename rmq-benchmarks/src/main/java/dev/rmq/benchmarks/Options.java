package dev.rmq.benchmarks;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line: {@code [--quick] [--out FILE] [--reps N] [--only SECTION,...] [--backlog N]}.
 *
 * @param quick    the short run (about 3 minutes): smaller counts, fewer repetitions, backlogs 10k and 1M,
 *                 lateness produced for 2 s instead of 10 s
 * @param out      the JSON file; the chart goes beside it with the extension {@code .png}
 * @param reps     repetitions of every measured case
 * @param sections which sections run (all by default)
 * @param backlog  the largest backlog the backlog section measures, beside 10k; 0 for the run's own sizes
 */
record Options(boolean quick, Path out, int reps, Set<String> sections, long backlog) {

    /** The smallest backlog, which every other is read against. */
    static final long SMALLEST_BACKLOG = 10_000;

    static final List<String> ALL_SECTIONS = List.of("throughput", "memory", "backlog", "lateness", "order", "schedules",
            "single", "fixed", "rebalance", "payloads");

    static Options parse(String... args) {
        boolean quick = false;
        Path out = Path.of("bench-result.json");
        Integer reps = null;
        long backlog = 0;
        Set<String> sections = new LinkedHashSet<>(ALL_SECTIONS);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--full" -> quick = false;
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--reps" -> reps = Integer.parseInt(value(args, ++i, "--reps"));
                case "--only" -> {
                    sections = new LinkedHashSet<>(List.of(value(args, ++i, "--only").split(",")));
                    if (!ALL_SECTIONS.containsAll(sections)) {
                        throw new IllegalArgumentException("--only takes some of " + ALL_SECTIONS + ", was " + sections);
                    }
                }
                case "--backlog" -> {
                    backlog = Long.parseLong(value(args, ++i, "--backlog"));
                    if (backlog <= SMALLEST_BACKLOG) {
                        throw new IllegalArgumentException("--backlog takes a number of messages above "
                                + SMALLEST_BACKLOG + ", the backlog it is compared with; was " + backlog);
                    }
                }
                case "-h", "--help" -> throw new IllegalArgumentException("");
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int r = reps != null ? reps : quick ? 3 : 5;
        if (r < 1) {
            throw new IllegalArgumentException("--reps must be at least 1, was " + r);
        }
        return new Options(quick, out, r, sections, backlog);
    }

    static String usage() {
        return """
                usage: bench [--quick] [--out FILE] [--reps N] [--only SECTION[,SECTION...]]
                  --quick   the short run (about 3 minutes: smaller counts, 3 repetitions, backlogs 10k and 1M,
                            lateness produced for 2 s instead of 10 s); without it the full run (15 to 20 minutes)
                  --out     the JSON result file (default bench-result.json); the chart is written beside it as .png
                  --reps    repetitions of every case (default 3 quick, 5 full); figures are their median and range
                  --only    run only these sections: throughput, memory, backlog, lateness, order, schedules,
                            single, fixed, rebalance, payloads
                  --backlog the backlog section measures 10k and this many queued messages (e.g. 50000000, which
                            needs about 16 GB for Redis), instead of 10k and 1M (quick) or 10k, 1M and 10M
                """;
    }

    Path chart() {
        String name = out.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        return out.resolveSibling(stem + ".png");
    }

    boolean runs(String section) {
        return sections.contains(section);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
