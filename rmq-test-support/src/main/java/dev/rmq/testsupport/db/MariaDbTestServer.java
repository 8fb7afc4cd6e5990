package dev.rmq.testsupport.db;

import org.jspecify.annotations.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server for one test class: the machine's {@code mariadbd} (Debian's {@code mariadb-server}, which
 * {@code .ci/run} installs when it is missing), with a data directory of its own made by {@code mariadb-install-db},
 * on a free loopback port; user {@code root} without a password, database {@code rmq}.
 *
 * <pre>{@code
 * Assumptions.assumeTrue(MariaDbTestServer.available(), MariaDbTestServer.missing());
 * static MariaDbTestServer mariadb = MariaDbTestServer.start();   // close it in @AfterAll
 * }</pre>
 */
public final class MariaDbTestServer extends DatabaseProcess {

    private static final List<String> SERVERS = List.of("/usr/sbin/mariadbd", "/usr/sbin/mysqld");
    private static final List<String> INSTALLERS = List.of("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");

    private MariaDbTestServer() {
        super("mariadb");
    }

    /** Whether this machine has MariaDB's server and installer. */
    public static boolean available() {
        return find(SERVERS) != null && find(INSTALLERS) != null;
    }

    /** Why {@link #available()} is false. */
    public static String missing() {
        return "MariaDB's server is not installed (looked for " + SERVERS + " and " + INSTALLERS + "); install Debian's"
                + " mariadb-server, as .ci/run does";
    }

    public static MariaDbTestServer start() {
        if (!available()) {
            throw new IllegalStateException(missing());
        }
        MariaDbTestServer server = new MariaDbTestServer();
        try {
            Path data = server.dir.resolve("data");
            ownDir(server.dir);
            List<String> install = new ArrayList<>(List.of(find(INSTALLERS), "--no-defaults",
                    "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (runningAsRoot()) {
                install.add("--user=nobody");
            }
            run(install, Duration.ofMinutes(2));
            ownDir(server.dir);
            String mysqld = find(SERVERS);
            server.startServer(port -> unprivileged(List.of(mysqld, "--no-defaults", "--datadir=" + data,
                    "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + server.dir.resolve("mysqld.sock"),
                    "--pid-file=" + server.dir.resolve("mysqld.pid"), "--skip-log-bin", "--innodb-flush-log-at-trx-commit=2",
                    "--innodb-buffer-pool-size=64M", "--max-connections=200")), "ready for connections",
                    Duration.ofMinutes(1));
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The JDBC URL of database {@code rmq} (created when first connected), user root, no password. */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/rmq?user=root&createDatabaseIfNotExist=true";
    }

    private static @Nullable String find(List<String> candidates) {
        for (String candidate : candidates) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }
}
