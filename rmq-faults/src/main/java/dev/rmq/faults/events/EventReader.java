package dev.rmq.faults.events;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** Reads the events of a run: every {@code *.events} file of its directory. */
public final class EventReader {

    private EventReader() {
    }

    /**
     * Hands {@code sink} every event of the run in {@code dir}, file by file, each file's in the order it was written
     * (so a handler's start comes before its end even when the clock read the same microsecond); lines cut short by
     * a SIGKILL are skipped. It reads a line at a time, so a long run's millions of events cost only what the sink
     * keeps of them.
     */
    public static void forEachInRun(Path dir, Consumer<HarnessEvent> sink) {
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(f -> f.getFileName().toString().endsWith(".events")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the events of " + dir, e);
        }
        for (Path file : files) {
            forEach(file, sink);
        }
    }

    private static void forEach(Path file, Consumer<HarnessEvent> sink) {
        // a reader that replaces bytes it cannot decode: a SIGKILL may cut a line inside a character, and that line
        // is skipped as any other cut short, where a strict decoder would end the whole read
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                HarnessEvent event = parse(line);
                if (event != null) {
                    sink.accept(event);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
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
