package dev.rmq.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The JSON's {@code meta}: what ran, where and when, and how loaded the machine was at the start and the end,
 * since the figures of a shared machine are read against its load.
 */
final class Meta {

    private Meta() {
    }

    static void start(Context context) {
        Report report = context.report();
        RedisProbe probe = context.probe();
        report.value("meta.date", Instant.now().toString());
        report.value("meta.mode", context.options().quick() ? "quick" : "full");
        report.value("meta.repetitions", context.reps());
        report.value("meta.cores", Runtime.getRuntime().availableProcessors());
        report.value("meta.load_average_start", loadAverage());
        report.value("meta.java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        report.value("meta.redis_version", probe.server().version());
        report.value("meta.redis_binary", probe.server().binary().path().toString());
        report.value("meta.payload_bytes", Payloads.SIZE);
        report.value("meta.figures", "median of the repetitions; <name>_range is [min, max], <name>_samples each value;"
                + " counts of events (early deliveries, lost messages, refused sends) are the sum over all repetitions,"
                + " with <name>_per_repetition each value");
    }

    static void end(Context context, long startedNanos) {
        context.report().value("meta.load_average_end", loadAverage());
        context.report().value("meta.seconds", Math.round((System.nanoTime() - startedNanos) / 1e9));
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
