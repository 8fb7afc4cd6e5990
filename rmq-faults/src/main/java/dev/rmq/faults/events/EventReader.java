package dev.rmq.faults.events;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads the events of a run: every {@code *.events} file of its directory, ordered by time. */
public final class EventReader {

    private EventReader() {
    }

    /**
     * Every event of the run in {@code dir}, file by file, each file's in the order it was written (so a handler's
     * start comes before its end even when the clock read the same microsecond); lines cut short by a SIGKILL are
     * skipped.
     */
    public static List<HarnessEvent> readRun(Path dir) {
        List<HarnessEvent> events = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".events")).sorted().toList()) {
                events.addAll(read(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the events of " + dir, e);
        }
        return events;
    }

    /** The events of one file, in the order they were written. */
    public static List<HarnessEvent> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        List<HarnessEvent> events = new ArrayList<>(lines.size());
        for (String line : lines) {
            HarnessEvent event = parse(line);
            if (event != null) {
                events.add(event);
            }
        }
        return events;
    }

    /** One line as an event, or null when it is blank or was cut short. */
    public static @Nullable HarnessEvent parse(String line) {
        if (line.isBlank()) {
            return null;
        }
        try {
            return EventLog.JSON.readValue(line, HarnessEvent.class);
        } catch (JacksonException e) {
            return null;
        }
    }
}
