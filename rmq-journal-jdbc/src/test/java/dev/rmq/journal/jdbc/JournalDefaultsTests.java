package dev.rmq.journal.jdbc;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal's builder holds its only defaults: the starter leaves what is not set to it. The journal page must
 * give the builder's defaults.
 */
class JournalDefaultsTests {

    private static final Pattern ROW = Pattern.compile("^\\| `rmq\\.journal\\.([a-z-]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Test
    void theJournalPageGivesTheBuildersDefaults() throws IOException {
        // a data source that is never connected: building the settings reads nothing
        JournalSettings defaults = JdbcJournal.builder(new PGSimpleDataSource()).settings();
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = ROW.matcher(Files.readString(Path.of("..", "docs", "journal.md")));
        while (row.find()) {
            rows.put(row.group(1), row.group(2).trim());
        }
        assertThat(rows.get("mode")).isEqualTo(defaults.defaultMode().name().toLowerCase(Locale.ROOT));
        assertThat(Integer.parseInt(rows.get("buffer-capacity"))).isEqualTo(defaults.bufferCapacity());
        assertThat(Integer.parseInt(rows.get("batch-size"))).isEqualTo(defaults.batchSize());
        assertThat(rows.get("when-unavailable")).isEqualTo(defaults.whenUnavailable().name().toLowerCase(Locale.ROOT));
        assertThat(duration(rows.get("block-timeout"))).isEqualTo(defaults.blockTimeout());
        assertThat(duration(rows.get("sync-timeout"))).isEqualTo(defaults.syncTimeout());
        assertThat(duration(rows.get("history-retention"))).isEqualTo(defaults.retention());
        assertThat(duration(rows.get("prune-interval"))).isEqualTo(defaults.pruneInterval());
        assertThat(duration(rows.get("close-timeout"))).isEqualTo(defaults.closeTimeout());
        assertThat(Boolean.parseBoolean(rows.get("migrate"))).isEqualTo(defaults.migrate());
    }

    /** A duration as the page writes it: {@code 10s}, {@code 1m}, {@code 7d}. */
    private static Duration duration(String text) {
        Matcher matcher = DURATION.matcher(text);
        assertThat(matcher.matches()).as("'%s' is a duration like 10s", text).isTrue();
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }
}
