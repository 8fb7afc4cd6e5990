package dev.rmq.cluster;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.rmq.embedded.RedisServer;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watches for errors outside the test thread: warnings and errors logged by rmq's workers or Redisson
 * (a failed poll or ack is logged, not thrown) and every error reply counted by the Redis nodes in
 * {@code INFO errorstats}, where a CROSSSLOT, MOVED or ASK would show.
 */
final class ErrorWatch implements AutoCloseable {
    private final Map<Integer, Map<String, Long>> before;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final ch.qos.logback.classic.Logger root =
            (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private ErrorWatch() {
        before = errorStats();
        appender.start();
        root.addAppender(appender);
    }

    static ErrorWatch start() {
        return new ErrorWatch();
    }

    /** @param allowed error codes that may appear in INFO errorstats */
    void assertNone(Recorder recorder, String... allowed) {
        assertThat(recorder.problems).as("what the handler found wrong").isEmpty();
        List<String> logged;
        synchronized (appender) {
            logged = appender.list.stream()
                    // the handlers' own failures, which the tests provoke, are logged on dev.rmq.failures
                    .filter(e -> !e.getLoggerName().equals("dev.rmq.failures"))
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)
                            || e.getFormattedMessage().contains("ran out before its ack"))
                    .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()
                            + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getMessage()))
                    .toList();
        }
        assertThat(logged).as("warnings and errors logged while the test ran").isEmpty();
        Map<Integer, Map<String, Long>> after = errorStats();
        Map<String, Long> unexpected = new TreeMap<>();
        after.forEach((port, stats) -> stats.forEach((error, count) -> {
            long delta = count - before.getOrDefault(port, Map.of()).getOrDefault(error, 0L);
            if (delta > 0 && !List.of(allowed).contains(error)) {
                unexpected.put(port + " " + error, delta);
            }
        }));
        assertThat(unexpected).as("error replies counted by the Redis nodes (INFO errorstats) during the test")
                .isEmpty();
    }

    /** How many {@code error} replies all nodes counted since the watch started. */
    long counted(String error) {
        long total = 0;
        for (Map.Entry<Integer, Map<String, Long>> node : errorStats().entrySet()) {
            total += node.getValue().getOrDefault(error, 0L)
                    - before.getOrDefault(node.getKey(), Map.of()).getOrDefault(error, 0L);
        }
        return total;
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }

    /** port -> error code -> count, from every node's INFO errorstats (Redis 6.2 and later). */
    private static Map<Integer, Map<String, Long>> errorStats() {
        Map<Integer, Map<String, Long>> stats = new HashMap<>();
        for (RedisServer node : ClusterFixture.cluster.nodes()) {
            Map<String, Long> counts = new HashMap<>();
            node.info("errorstats").forEach((field, value) -> {
                if (field.startsWith("errorstat_")) {
                    counts.put(field.substring("errorstat_".length()),
                            Long.parseLong(value.substring(value.indexOf('=') + 1).split(",")[0]));
                }
            });
            stats.put(node.port(), counts);
        }
        return stats;
    }
}
