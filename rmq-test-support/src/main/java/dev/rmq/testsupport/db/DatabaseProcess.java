package dev.rmq.testsupport.db;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * A database server process a test started: run as an unprivileged user when the JVM runs as root (PostgreSQL and
 * MariaDB refuse root or need to be told), stopped by pid, its directory deleted. A shutdown hook stops whatever a
 * failed test left running.
 */
abstract class DatabaseProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DatabaseProcess.class);
    private static final Set<DatabaseProcess> RUNNING = ConcurrentHashMap.newKeySet();
    /** The uid and gid of {@code nobody} on Debian, which a root JVM runs database servers as. */
    static final String UNPRIVILEGED = "65534";

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(DatabaseProcess::close),
                "rmq-database-reaper"));
    }

    /** Ports tried at most when another process takes the chosen one before the server binds it. */
    private static final int PORT_ATTEMPTS = 5;

    protected final Path dir;
    /** The server's port, chosen by {@link #startServer} just before the server starts. */
    protected int port;
    /** Null until {@link #startServer} runs it. */
    private @Nullable Process process;

    DatabaseProcess(String name) {
        try {
            this.dir = Files.createTempDirectory("rmq-" + name + "-");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a directory for " + name + ": " + e, e);
        }
    }

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The command as the unprivileged user when the JVM is root, as it is otherwise. */
    static List<String> unprivileged(List<String> command) {
        if (!runningAsRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + UNPRIVILEGED, "--regid=" + UNPRIVILEGED,
                "--clear-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Hands a directory to the unprivileged user when the JVM is root. */
    static void ownDir(Path path) {
        if (runningAsRoot()) {
            run(List.of("chown", "-R", UNPRIVILEGED + ":" + UNPRIVILEGED, path.toString()), Duration.ofMinutes(1));
        }
    }

    /** Runs a command to its end; throws with its output when it fails. */
    static void run(List<String> command, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(output));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command.get(0) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    /**
     * Starts the server process on a free port and waits until the port takes connections and its log says it is
     * ready. The port is chosen as late as possible, but a port free when chosen may be taken before the server binds
     * it (by an outgoing connection of any process, which draws from the same range): then the server ends at once,
     * saying so, and starts again on another port, up to {@value #PORT_ATTEMPTS} times.
     *
     * @param command the command that starts the server on the port it is given
     */
    protected void startServer(IntFunction<List<String>> command, String readyLine, Duration timeout) {
        for (int attempt = 1; ; attempt++) {
            port = freePort();
            try {
                startServerOnce(command.apply(port), readyLine, timeout);
                return;
            } catch (PortTaken e) {
                if (attempt == PORT_ATTEMPTS) {
                    close();
                    throw new IllegalStateException(e.getMessage() + " (the last of " + PORT_ATTEMPTS
                            + " ports tried)", e);
                }
                log.info("{}; starting it again on another port", e.getMessage());
            }
        }
    }

    /** The server ended at start because its port was taken; its directory is kept for the next try. */
    private static final class PortTaken extends RuntimeException {
        PortTaken(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Starts the server process once and waits until it is ready. An open port alone is not enough: PostgreSQL
     * listens before its startup process ends, and refuses a connection in that gap ("the database system is
     * starting up").
     */
    private void startServerOnce(List<String> command, String readyLine, Duration timeout) {
        try {
            Path log = dir.resolve("server.log");
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            RUNNING.add(this);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    String output = Files.readString(log);
                    if (output.contains("Address already in use")) {
                        RUNNING.remove(this);
                        throw new PortTaken(command.get(0) + " found port " + port + " taken by another process");
                    }
                    throw new IllegalStateException(command.get(0) + " ended at start: " + output);
                }
                if (accepts() && Files.readString(log).contains(readyLine)) {
                    return;
                }
                // a poll of a condition nothing signals (a port and a log line of another process), until the deadline
                Thread.sleep(50);
            }
            throw new IllegalStateException(command.get(0) + " was not ready on port " + port + " within " + timeout
                    + " (its log never said '" + readyLine + "'): " + Files.readString(log));
        } catch (PortTaken e) {
            throw e;
        } catch (IOException e) {
            close();
            throw new IllegalStateException("cannot start " + command.get(0) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting " + command.get(0), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public int port() {
        return port;
    }

    /** The server's pid, for a test that kills it. */
    public long pid() {
        return Objects.requireNonNull(process, "the server was never started").pid();
    }

    /** Stops the server (SIGTERM, then SIGKILL after 10 s) and deletes its directory. */
    @Override
    public void close() {
        RUNNING.remove(this);
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        deleteQuietly(dir);
    }

    static void deleteQuietly(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.debug("could not delete {}: {}", path, e.toString());
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e, e);
        }
    }
}
