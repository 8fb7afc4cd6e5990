package dev.rmq.embedded;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A redis-server's data directory and log file: created, read for error messages, and deleted when owned. The two
 * static helpers serve deployments of several servers that share a configuration directory.
 */
public final class ServerFiles {

    private static final Logger log = LoggerFactory.getLogger(ServerFiles.class);
    private static final int LOG_TAIL_LINES = 40;

    private final Path dir;
    private final boolean owned;
    private final Path logFile;

    /** @param owned whether the directory is a fresh one of this server's, deleted with it */
    ServerFiles(Path dir, boolean owned) {
        this.dir = dir;
        this.owned = owned;
        this.logFile = dir.resolve("redis.log");
    }

    Path logFile() {
        return logFile;
    }

    /** The requested directory, created if needed, or a fresh temporary one when none is requested. */
    public static Path createDir(@Nullable Path requested) {
        try {
            return requested != null ? Files.createDirectories(requested).toAbsolutePath()
                    : Files.createTempDirectory("rmq-redis-").toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a data directory for redis-server", e);
        }
    }

    void deleteDirIfOwned() {
        if (owned) {
            deleteRecursively(dir);
        }
    }

    /** Deletes {@code dir} and everything under it; a failure is logged, not thrown. */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete {}: {}", dir, e.toString());
        }
    }

    long logSize() {
        try {
            return Files.exists(logFile) ? Files.size(logFile) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** What the log gained since {@code offset}. */
    String logSince(long offset) {
        try (InputStream in = Files.newInputStream(logFile)) {
            in.skipNBytes(Math.min(offset, Files.size(logFile)));
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(could not read " + logFile + ": " + e + ")";
        }
    }

    /** The last lines of a log, for an error message. */
    static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    }
}
