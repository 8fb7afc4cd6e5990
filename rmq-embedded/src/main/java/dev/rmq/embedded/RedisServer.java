package dev.rmq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process on a free {@code 127.0.0.1} port with its own data directory.
 *
 * <p>Output goes to {@code redis.log} in the data directory rather than the test's console. The
 * process is registered with a JVM shutdown hook, so it dies with the JVM even if nobody calls
 * {@link #close()}.
 */
public final class RedisServer implements AutoCloseable {

    public static final String HOST = "127.0.0.1";

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);
    /** util-linux's setsid, where there is one: it starts a program in a session of its own, under the same pid. */
    private static final @Nullable Path SETSID = java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid").map(Path::of)
            .filter(java.nio.file.Files::isExecutable).findFirst().orElse(null);
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(15);
    // Short, so a probe stuck on something that accepts but never answers cannot eat the startup timeout.
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private final RedisBinary binary;
    private final RedisServerOptions options;
    private final int port;
    private final Path dir;
    private final ServerFiles files;
    private final Path logFile;
    private volatile @Nullable Process process;
    private volatile boolean closed;

    private RedisServer(RedisBinary binary, RedisServerOptions options, int port, Path dir, boolean ownsDir) {
        this.binary = binary;
        this.options = options;
        this.port = port;
        this.dir = dir;
        this.files = new ServerFiles(dir, ownsDir);
        this.logFile = files.logFile();
    }

    /** Starts a plain standalone server without persistence. */
    public static RedisServer start() {
        return start(RedisServerOptions.defaults());
    }

    public static RedisServer start(RedisServerOptions options) {
        Objects.requireNonNull(options, "options");
        RedisBinary binary = RedisBinary.resolve();
        boolean ownsDir = options.dataDir() == null;
        Path dir = ServerFiles.createDir(options.dataDir());
        try {
            PortInUseException lastClash = null;
            for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
                RedisServer server = new RedisServer(binary, options, FreePorts.pick(options.clusterEnabled()), dir, ownsDir);
                try {
                    server.launch();
                    return server;
                } catch (PortInUseException e) {
                    // Someone took the port between our probe and redis-server's bind; pick another.
                    lastClash = e;
                }
            }
            throw new IllegalStateException("redis-server could not bind a free port in " + PORT_ATTEMPTS + " attempts", lastClash);
        } catch (RuntimeException e) {
            if (ownsDir) {
                ServerFiles.deleteRecursively(dir);
            }
            throw e;
        }
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}, the form Redisson's {@code setAddress}/{@code addNodeAddress} expect. */
    public String address() {
        return "redis://" + HOST + ":" + port;
    }

    /** Pid of the current process; changes after {@link #restart()}. */
    public long pid() {
        return currentProcess().pid();
    }

    public String version() {
        return binary.version();
    }

    public RedisBinary binary() {
        return binary;
    }

    /** Working directory holding the AOF/RDB files, {@code nodes.conf} and {@code redis.log}. */
    public Path dataDir() {
        return dir;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * Sends one command on a fresh connection.
     *
     * @return a String, Long, {@code List<Object>} or null, as RESP2 replies map (an error nested in an
     *         array, e.g. inside an EXEC reply, appears as a {@link RedisReplyException} element)
     * @throws RedisReplyException when Redis answers with an error
     * @throws UncheckedIOException when the server cannot be reached
     */
    public @Nullable Object command(String... args) {
        return call(COMMAND_TIMEOUT, args);
    }

    private @Nullable Object call(Duration readTimeout, String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("command needs at least the command name");
        }
        try {
            return Resp.call(HOST, port, readTimeout, args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " to " + HOST + ":" + port + " failed: " + e.getMessage(), e);
        }
    }

    /** Parses {@code INFO <section>} into {@code field -> value}, e.g. {@code info("replication").get("role")}. */
    public Map<String, String> info(String section) {
        return parseInfo((String) reply(COMMAND_TIMEOUT, "INFO", section));
    }

    public Map<String, String> info() {
        return parseInfo((String) reply(COMMAND_TIMEOUT, "INFO"));
    }

    /** {@code master} or {@code slave}, as {@code ROLE} reports it. */
    public String role() {
        return (String) ((List<?>) reply(COMMAND_TIMEOUT, "ROLE")).get(0);
    }

    /** For a command whose reply is never nil (INFO, ROLE). */
    private Object reply(Duration readTimeout, String... args) {
        return Objects.requireNonNull(call(readTimeout, args), () -> args[0] + " answered with nil");
    }

    /** Graceful stop (SHUTDOWN NOSAVE, escalating to SIGTERM and SIGKILL); the data directory is kept. */
    public synchronized void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        try {
            // NOW (7.0+) skips waiting for lagging replicas, which would stall cluster teardown.
            command(binary.majorVersion() >= 7 ? new String[] {"SHUTDOWN", "NOSAVE", "NOW"} : new String[] {"SHUTDOWN", "NOSAVE"});
        } catch (RuntimeException expected) {
            // A successful SHUTDOWN closes the connection without replying.
        }
        if (!awaitExit(p, STOP_TIMEOUT)) {
            log.warn("redis-server on port {} ignored SHUTDOWN; sending SIGTERM", port);
            p.destroy();
            if (!awaitExit(p, STOP_TIMEOUT)) {
                p.destroyForcibly();
                awaitExit(p, STOP_TIMEOUT);
            }
        }
    }

    /** SIGKILL without any chance to flush, to simulate a crash. */
    public synchronized void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            if (!awaitExit(p, STOP_TIMEOUT)) {
                throw new IllegalStateException("redis-server pid " + p.pid() + " survived SIGKILL for " + STOP_TIMEOUT);
            }
        }
    }

    /** Stops (if running) and starts again on the same port and data directory, e.g. to reload the AOF. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("Cannot restart " + this + ": it is closed");
        }
        stop();
        try {
            launch();
        } catch (PortInUseException e) {
            throw new IllegalStateException("Cannot restart on port " + port + ": another process took it", e);
        }
    }

    /** Stops the server and deletes its data directory unless the caller supplied it. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            trackForExit(false);
            files.deleteDirIfOwned();
        }
    }

    @Override
    public String toString() {
        Process p = process;
        return "redis-server " + version() + " at " + HOST + ":" + port + (p != null ? " (pid " + p.pid() + ")" : "");
    }

    // --- startup ---------------------------------------------------------------------------------------------

    private void launch() {
        List<String> command = commandLine();
        long logOffset = files.logSize();
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + String.join(" ", command), e);
        }
        process = started;
        trackForExit(true);
        try {
            awaitPong(started, logOffset);
        } catch (RuntimeException e) {
            destroyForcibly();
            awaitExit(started, STOP_TIMEOUT);
            trackForExit(false);
            throw e;
        }
        log.debug("Started {} in {}", this, dir);
    }

    /** Puts the server on the exit hook's list, or takes it off, unless its owner alone stops it. */
    private void trackForExit(boolean track) {
        // not even touched otherwise: its class adds the exit hook, which fails while the JVM is exiting
        if (!options.killedAtExit()) {
            return;
        }
        if (track) {
            ServerRegistry.register(this);
        } else {
            ServerRegistry.deregister(this);
        }
    }

    private List<String> commandLine() {
        List<String> command = new ArrayList<>();
        Path setsid = SETSID;
        if (!options.killedAtExit() && setsid != null) {
            // its own session and process group: a terminal's Ctrl-C, sent to the application's group, misses it
            command.add(setsid.toString());
        }
        command.add(binary.path().toString());
        Path configFile = options.configFile();
        if (configFile != null) {
            command.add(configFile.toString());
        }
        command.addAll(List.of(
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--dir", dir.toString(),
                "--daemonize", "no",
                "--protected-mode", "no"));
        // Appended last because redis-server lets a later --option override an earlier one.
        command.addAll(options.args());
        return command;
    }

    private void awaitPong(Process p, long logOffset) {
        Poll.until(options.startupTimeout(), () -> {
            if (!p.isAlive()) {
                String output = files.logSince(logOffset);
                if (output.contains("Address already in use")) {
                    throw new PortInUseException(port, output);
                }
                throw new ExitedException("redis-server exited with code " + p.exitValue() + " while starting on port " + port
                        + "; " + logFile + " ends with:\n" + ServerFiles.tail(output));
            }
            // Ask who answers, not just whether something does: until our process has bound the port,
            // whatever else holds it (a squatter, another Redis) must not pass for this server.
            return "PONG".equals(call(PROBE_TIMEOUT, "PING"))
                    && Long.toString(p.pid()).equals(parseInfo((String) reply(PROBE_TIMEOUT, "INFO", "server")).get("process_id"));
        }, () -> "redis-server on port " + port + " did not answer PING within " + options.startupTimeout()
                + "; " + logFile + " ends with:\n" + ServerFiles.tail(files.logSince(logOffset)));
    }

    private static final class ExitedException extends Poll.GiveUp {
        private static final long serialVersionUID = 1L;

        ExitedException(String message) {
            super(message);
        }
    }

    private static final class PortInUseException extends Poll.GiveUp {
        private static final long serialVersionUID = 1L;

        PortInUseException(int port, String output) {
            super("Port " + port + " (or its cluster bus port) is already in use:\n" + ServerFiles.tail(output));
        }
    }

    // --- used by the shutdown hook ---------------------------------------------------------------------------

    void destroyForcibly() {
        Process p = process;
        if (p != null) {
            p.toHandle().destroyForcibly();
        }
    }

    void awaitExitAndDeleteDir() {
        Process p = process;
        if (p != null) {
            awaitExit(p, Duration.ofSeconds(5));
        }
        files.deleteDirIfOwned();
    }

    // --- helpers ---------------------------------------------------------------------------------------------

    private Process currentProcess() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("redis-server on port " + port + " was never started");
        }
        return p;
    }

    private static boolean awaitExit(Process p, Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // Finish the wait anyway: returning early would leave a process whose port is still bound.
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The {@code field:value} lines of an INFO-style reply (INFO, CLUSTER INFO), without comments and blanks. */
    public static Map<String, String> parseInfo(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (line.isBlank() || line.startsWith("#") || colon < 0) {
                continue;
            }
            fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
        }
        return fields;
    }
}
