package dev.rmq.testsupport.db;

import dev.rmq.embedded.RedisBinary;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server whose chosen port another process takes before it binds it starts again on another port. The server here
 * is a redis-server, which, like PostgreSQL and MariaDB, ends at once saying "Address already in use"; the first port
 * it is given is taken on purpose, as an outgoing connection of any process may take it.
 */
class DatabaseProcessTests {

    /** A redis-server run the way the database servers are. */
    private static final class Server extends DatabaseProcess {
        Server() {
            super("port-test");
        }
    }

    @Test
    void aServerWhosePortIsTakenBeforeItBindsItStartsOnAnother() throws IOException {
        String redis = RedisBinary.resolve().path().toString();
        List<Integer> given = new ArrayList<>();
        List<ServerSocket> taken = new ArrayList<>();
        try (Server server = new Server()) {
            server.startServer(port -> {
                given.add(port);
                if (given.size() == 1) {
                    try {
                        taken.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                    } catch (IOException e) {
                        throw new IllegalStateException("cannot take port " + port, e);
                    }
                }
                return List.of(redis, "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no");
            }, "Ready to accept connections", Duration.ofSeconds(30));

            assertThat(given).hasSize(2);
            assertThat(server.port()).isEqualTo(given.get(1)).isNotEqualTo(given.get(0));
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                assertThat(socket.isConnected()).isTrue();
            }
        } finally {
            for (ServerSocket socket : taken) {
                socket.close();
            }
        }
    }
}
