package dev.rmq.embedded;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.BindException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A standalone ZooKeeper server inside this JVM, on a free loopback port, with its data in a fresh temporary
 * directory that {@link #close()} deletes. It runs ZooKeeper's own embedded server (the {@code zookeeper} artifact),
 * so no test library ships with an application that uses it. For development and tests: it is one server, with no
 * quorum to survive its loss.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    private static final int ATTEMPTS = 5;
    private static final long START_TIMEOUT_MILLIS = 15_000;

    private final ZooKeeperServerEmbedded server;
    private final Path dataDir;
    private final int port;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, Path dataDir, int port) {
        this.server = server;
        this.dataDir = dataDir;
        this.port = port;
    }

    /**
     * Starts a server and waits until it accepts clients. A port taken between picking and binding it is retried
     * on another.
     *
     * @throws IllegalStateException when no server could be started, with ZooKeeper's reason
     */
    public static EmbeddedZooKeeper start() {
        Exception last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Path dir = ServerFiles.createDir(null);
            int port = FreePorts.pick(false);
            ZooKeeperServerEmbedded server = null;
            try {
                server = ZooKeeperServerEmbedded.builder()
                        .baseDir(dir)
                        .configuration(configuration(port))
                        // a failing server must not end the JVM it is embedded in
                        .exitHandler(ExitHandler.LOG_ONLY)
                        .build();
                server.start(START_TIMEOUT_MILLIS);
                EmbeddedZooKeeper started = new EmbeddedZooKeeper(server, dir, port);
                log.debug("Started {}", started);
                return started;
            } catch (Exception e) {
                last = e;
                if (server != null) {
                    server.close();
                }
                ServerFiles.deleteRecursively(dir);
                if (!(rootCause(e) instanceof BindException)) {
                    break;
                }
            }
        }
        throw new IllegalStateException("Could not start an embedded ZooKeeper: " + rootCause(last), last);
    }

    private static Properties configuration(int port) {
        Properties properties = new Properties();
        properties.setProperty("clientPort", String.valueOf(port));
        properties.setProperty("clientPortAddress", "127.0.0.1");
        properties.setProperty("tickTime", "500");
        // sessions between 1 s and 60 s: a client's requested timeout is honoured, not stretched to 4 s minimum
        properties.setProperty("minSessionTimeout", "1000");
        properties.setProperty("maxSessionTimeout", "60000");
        // no admin web server on 8080, and no snapshots piling up
        properties.setProperty("admin.enableServer", "false");
        properties.setProperty("autopurge.purgeInterval", "0");
        return properties;
    }

    /** {@code 127.0.0.1:port}, as a client's connect string. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Stops the server and deletes its data; only the first call does anything. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close();
        ServerFiles.deleteRecursively(dataDir);
        log.debug("Stopped {}", this);
    }

    @Override
    public String toString() {
        return "embedded ZooKeeper at " + connectString();
    }

    private static @Nullable Throwable rootCause(@Nullable Throwable error) {
        Throwable root = error;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }
}
