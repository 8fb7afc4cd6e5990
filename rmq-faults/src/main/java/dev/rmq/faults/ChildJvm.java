package dev.rmq.faults;

import org.jspecify.annotations.Nullable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of the harness: started with the harness's own class path, controlled through its stdin, and
 * answering on its stdout; its stderr (the slf4j log) goes to a file. Every child is registered with a
 * shutdown hook that kills it (after a SIGCONT, in case it is stopped), so none outlives the harness.
 */
final class ChildJvm {

    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildJvm::killAll, "rmq-faults-child-reaper"));
    }

    private final String name;
    private final Process process;
    private final OutputStream stdin;
    private final LinkedBlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private volatile boolean stopped;

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::readReplies, "rmq-faults-stdout-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} in a new JVM with at most {@code heap} of heap. */
    static ChildJvm start(String name, Class<?> mainClass, List<String> args, Path stderrFile, String heap) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + heap);
        command.add("-Xss512k");
        // serial GC and one JIT thread: the run shares two cores among all its processes
        command.add("-XX:+UseSerialGC");
        command.add("-XX:CICompilerCount=2");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command).redirectError(Redirect.appendTo(stderrFile.toFile())).start();
            ChildJvm child = new ChildJvm(name, process);
            LIVE.add(child);
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Sends one command line to the child's stdin. */
    void send(String command) {
        try {
            stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send " + command + " to " + name + " (pid " + pid() + ")", e);
        }
    }

    /** Waits for a stdout line that starts with {@code prefix}; null when none comes in time or the child died. */
    @Nullable String await(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            String line = replies.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive() && replies.isEmpty()) {
                return null;
            }
        }
    }

    /** SIGSTOP: the process freezes, threads, timers and sockets included (a GC-pause stand-in). */
    void pause() {
        signal("-STOP");
        stopped = true;
    }

    /** SIGCONT. */
    void resume() {
        signal("-CONT");
        stopped = false;
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (pid " + pid() + ") survived SIGKILL for 30 s");
        }
        LIVE.remove(this);
    }

    /** Sends {@code command} (EXIT or STOP) and waits for the exit; kills the child when it takes too long. */
    boolean exit(String command, Duration timeout) throws InterruptedException {
        if (stopped) {
            resume();
        }
        if (process.isAlive()) {
            try {
                send(command);
            } catch (UncheckedIOException e) {
                // the child closed its stdin: it is exiting anyway
            }
        }
        boolean clean = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!clean) {
            kill();
        }
        LIVE.remove(this);
        return clean;
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    private void readReplies() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                replies.add(line);
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** Kills every child still running; for the shutdown hook and for a run that ends in an error. */
    static void killAll() {
        List<ChildJvm> children = new ArrayList<>(LIVE);
        for (ChildJvm child : children) {
            try {
                if (child.stopped) {
                    child.resume();
                }
            } catch (RuntimeException e) {
                // SIGKILL ends a stopped process too
            }
            child.process.destroyForcibly();
        }
        for (ChildJvm child : children) {
            try {
                child.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            LIVE.remove(child);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
