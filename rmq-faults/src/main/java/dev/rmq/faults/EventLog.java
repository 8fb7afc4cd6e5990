package dev.rmq.faults;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One line per event, space-separated, each written with a single unbuffered {@code write} to a file
 * opened for appending: once {@link #write} returns the line is in the kernel, so it survives a SIGKILL of
 * the process (only a line being written at that instant can be lost or cut short, and readers skip it).
 */
final class EventLog implements AutoCloseable {

    private final Path file;
    private final FileOutputStream out;

    EventLog(Path file) {
        this.file = file;
        try {
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open event log " + file, e);
        }
    }

    /** Writes the fields as one line; fields must not contain spaces or line breaks. */
    synchronized void write(Object... fields) {
        StringBuilder line = new StringBuilder(96);
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                line.append(' ');
            }
            line.append(fields[i]);
        }
        line.append('\n');
        try {
            out.write(line.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write event log " + file, e);
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

    /** A field as it may appear in a line: spaces and line breaks replaced. */
    static String field(String text) {
        if (text == null || text.isEmpty()) {
            return "-";
        }
        return text.replaceAll("\\s+", "_");
    }
}
