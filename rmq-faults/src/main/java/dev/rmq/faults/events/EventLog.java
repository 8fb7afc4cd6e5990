package dev.rmq.faults.events;

import tools.jackson.databind.json.JsonMapper;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A process's event file: one {@link HarnessEvent} per line, as JSON, each written with a single unbuffered
 * {@code write} to a file opened for appending. Once {@link #write} returns the line is in the kernel, so it
 * survives a SIGKILL of the process; only a line being written at that instant can be cut short, and
 * {@link EventReader} skips it.
 */
public final class EventLog implements AutoCloseable {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path file;
    private final FileOutputStream out;

    public EventLog(Path file) {
        this.file = file;
        try {
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open event log " + file, e);
        }
    }

    public void write(HarnessEvent event) {
        byte[] line = (JSON.writerFor(HarnessEvent.class).writeValueAsString(event) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(line);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write event log " + file, e);
            }
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close event log " + file, e);
        }
    }

    /** The host clock in microseconds since the epoch; every process of a run shares it. */
    public static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /** An instant as host-clock microseconds. */
    public static long micros(Instant instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    }
}
