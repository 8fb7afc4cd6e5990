package dev.rmq.faults;

import dev.rmq.faults.events.EventReader;
import dev.rmq.faults.events.HarnessEvent;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Follows the consumers' event logs while the run goes on, for two things the harness needs live: which
 * handlers are running now in each consumer and how much work they have left (to kill or stop one in the
 * middle of a message), and when each probe was consumed (to measure recovery).
 */
final class ConsumerTail implements AutoCloseable {

    private final Map<String, FileState> files = new ConcurrentHashMap<>();
    private final Map<String, Long> probesDone = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "rmq-faults-tail");
        thread.setDaemon(true);
        return thread;
    });

    /** A handler in progress: its message key, when it started (host micros) and how long it will work (ms). */
    record Handler(String key, long startMicros, int workMs) {

        /** How long it still has to work at {@code nowMicros}, in ms. */
        long remainingMs(long nowMicros) {
            return workMs - (nowMicros - startMicros) / 1000;
        }
    }

    private static final class FileState {
        final Path path;
        long offset;
        final StringBuilder partial = new StringBuilder();
        /** worker -> its handler in progress */
        final Map<String, Handler> open = new HashMap<>();

        FileState(Path path) {
            this.path = path;
        }
    }

    ConsumerTail() {
        executor.scheduleWithFixedDelay(this::readAll, 50, 50, TimeUnit.MILLISECONDS);
    }

    void follow(String incarnation, Path log) {
        files.put(incarnation, new FileState(log));
    }

    /** The handlers in progress in one incarnation, by worker, as of now. */
    Map<String, Handler> openHandlers(String incarnation) {
        FileState state = files.get(incarnation);
        if (state == null) {
            return Map.of();
        }
        synchronized (state) {
            readOne(state);
            return Map.copyOf(state.open);
        }
    }

    /** When the probe with this key was first consumed successfully, or null. */
    @Nullable Long probeDone(String key) {
        return probesDone.get(key);
    }

    private void readAll() {
        for (FileState state : files.values()) {
            synchronized (state) {
                readOne(state);
            }
        }
    }

    private void readOne(FileState state) {
        try {
            if (!Files.exists(state.path)) {
                return;
            }
            try (RandomAccessFile file = new RandomAccessFile(state.path.toFile(), "r")) {
                long length = file.length();
                if (length <= state.offset) {
                    return;
                }
                byte[] bytes = new byte[(int) Math.min(length - state.offset, 4 << 20)];
                file.seek(state.offset);
                file.readFully(bytes);
                state.offset += bytes.length;
                state.partial.append(new String(bytes, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            return;
        }
        // one delete for the whole read: deleting each line from the front moved the rest of a 4 MB read once per
        // line, so a tail that fell behind took longer to read a chunk than the consumers took to write it
        int start = 0;
        int newline;
        while ((newline = state.partial.indexOf("\n", start)) >= 0) {
            parse(state, state.partial.substring(start, newline));
            start = newline + 1;
        }
        state.partial.delete(0, start);
    }

    private void parse(FileState state, String line) {
        HarnessEvent event = EventReader.parse(line);
        if (event instanceof HarnessEvent.Delivered started) {
            state.open.put(started.worker(), new Handler(started.key(), started.micros(), started.workMs()));
        } else if (event instanceof HarnessEvent.Handled ended) {
            state.open.remove(ended.worker());
            if (Workload.isProbeKey(ended.key()) && ended.outcome().equals("ok")) {
                probesDone.putIfAbsent(ended.key(), ended.micros());
            }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
