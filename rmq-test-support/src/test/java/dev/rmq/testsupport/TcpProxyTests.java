package dev.rmq.testsupport;

import dev.rmq.embedded.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TcpProxyTests {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (TcpProxy proxy = TcpProxy.to(redis.host(), redis.port()); Socket socket = connect(proxy)) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            assertThat(proxy.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void roundRobinSendsEachNewConnectionToTheNextServer() throws IOException {
        try (RedisServer second = RedisServer.start();
             TcpProxy proxy = TcpProxy.roundRobin(redis.host(), redis.port(), second.port())) {
            for (int i = 0; i < 4; i++) {
                try (Socket socket = connect(proxy)) {
                    assertThat(ping(socket)).isEqualTo("+PONG");
                    socket.getOutputStream().write("CONFIG GET port\r\n".getBytes(StandardCharsets.US_ASCII));
                    InputStream in = socket.getInputStream();
                    // *2, $4, port, $<n>, then the port the connection reached
                    for (int line = 0; line < 4; line++) {
                        readLine(in);
                    }
                    int expected = i % 2 == 0 ? redis.port() : second.port();
                    assertThat(readLine(in)).isEqualTo(String.valueOf(expected));
                }
            }
            assertThat(proxy.connectionsPerTarget()).containsExactly(2L, 2L);
        }
        assertThatIllegalArgumentException().isThrownBy(() -> TcpProxy.roundRobin("127.0.0.1"));
    }

    @Test
    void aStallHoldsTheBytesAndDeliversThemLateWhenItHeals() throws IOException {
        try (TcpProxy proxy = TcpProxy.to(redis.host(), redis.port()); Socket socket = connect(proxy)) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            proxy.stall();
            socket.setSoTimeout(300);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThatThrownBy(() -> readLine(socket.getInputStream())).isInstanceOf(SocketTimeoutException.class);

            proxy.heal();
            socket.setSoTimeout(2_000);
            assertThat(readLine(socket.getInputStream())).isEqualTo("+PONG");
        }
    }

    @Test
    void latencyDelaysEachWay() throws IOException {
        try (TcpProxy proxy = TcpProxy.to(redis.host(), redis.port()).latency(Duration.ofMillis(150));
             Socket socket = connect(proxy)) {
            long start = System.nanoTime();
            assertThat(ping(socket)).isEqualTo("+PONG");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
    }

    @Test
    void aResetEndsEveryOpenConnectionAndNewOnesStillWork() throws IOException {
        try (TcpProxy proxy = TcpProxy.to(redis.host(), redis.port()); Socket socket = connect(proxy)) {
            assertThat(ping(socket)).isEqualTo("+PONG");
            proxy.resetAll();
            assertThatThrownBy(() -> {
                for (int i = 0; i < 10; i++) {
                    ping(socket);
                }
            }).isInstanceOf(IOException.class);
            try (Socket again = connect(proxy)) {
                assertThat(ping(again)).isEqualTo("+PONG");
            }
        }
    }

    @Test
    void refusedConnectionsEndAtOnceUntilItHeals() throws IOException {
        try (TcpProxy proxy = TcpProxy.to(redis.host(), redis.port()).refuse()) {
            try (Socket refused = connect(proxy)) {
                assertThatThrownBy(() -> ping(refused)).isInstanceOf(IOException.class);
            }
            proxy.heal();
            try (Socket accepted = connect(proxy)) {
                assertThat(ping(accepted)).isEqualTo("+PONG");
            }
        }
    }

    @Test
    void refusesATargetItCannotName() {
        assertThatIllegalArgumentException().isThrownBy(() -> TcpProxy.to("127.0.0.1", 0))
                .withMessageContaining("port in 1..65535");
    }

    private static Socket connect(TcpProxy proxy) throws IOException {
        Socket socket = new Socket("127.0.0.1", proxy.port());
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static String ping(Socket socket) throws IOException {
        socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        String line = readLine(socket.getInputStream());
        if (line == null) {
            throw new IOException("connection closed");
        }
        return line;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                return line.toString().strip();
            }
            line.append((char) c);
        }
        return line.isEmpty() ? null : line.toString();
    }
}
