package dev.rmq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerTests {

    private static final RedisServerOptions DURABLE =
            RedisServerOptions.defaults().withArgs("--appendonly", "yes", "--appendfsync", "always");

    private static RedisServer redis;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void closeServer() {
        redis.close();
    }

    @Test
    void answersPingOnAFreeLoopbackPortOtherThanTheDefaultOne() {
        assertThat(redis.command("PING")).isEqualTo("PONG");
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.port()).isPositive().isNotEqualTo(6379);
        assertThat(redis.address()).isEqualTo("redis://127.0.0.1:" + redis.port());
        assertThat(redis.isRunning()).isTrue();
        assertThat(ProcessHandle.of(redis.pid())).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
    }

    @Test
    void setThenGetReturnsTheStoredValue() {
        assertThat(redis.command("SET", "greeting", "héllo wörld")).isEqualTo("OK");
        assertThat(redis.command("GET", "greeting")).isEqualTo("héllo wörld");
        assertThat(redis.command("GET", "missing")).isNull();
        assertThat(redis.command("INCR", "counter")).isEqualTo(1L);
        redis.command("RPUSH", "list", "a", "b");
        assertThat(redis.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b"));
    }

    @Test
    void infoIsParsedIntoFieldsMatchingTheServer() {
        Map<String, String> server = redis.info("server");

        assertThat(server).containsEntry("redis_version", redis.version())
                .containsEntry("tcp_port", Integer.toString(redis.port()))
                .containsEntry("process_id", Long.toString(redis.pid()));
        assertThat(redis.info("replication")).containsEntry("role", "master");
        assertThat(redis.role()).isEqualTo("master");
    }

    @Test
    void errorRepliesAreThrownWithTheRedisMessage() {
        assertThatThrownBy(() -> redis.command("NO-SUCH-COMMAND"))
                .isInstanceOf(RedisReplyException.class)
                .hasMessageContaining("unknown command")
                .satisfies(e -> assertThat(((RedisReplyException) e).code()).isEqualTo("ERR"));
    }

    @Test
    void defaultsToNoPersistenceAndExtraArgsOverrideTheDefaults() {
        assertThat(redis.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        assertThat(redis.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));

        try (RedisServer durable = RedisServer.start(DURABLE)) {
            assertThat(durable.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "yes"));
            assertThat(durable.command("CONFIG", "GET", "appendfsync")).isEqualTo(List.of("appendfsync", "always"));
        }
    }

    @Test
    void aStoppedServerRefusesConnections() {
        try (RedisServer server = RedisServer.start()) {
            server.stop();

            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> new Socket(server.host(), server.port()).close()).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void restartOnTheSamePortKeepsAppendOnlyFileData() {
        try (RedisServer server = RedisServer.start(DURABLE)) {
            int port = server.port();
            long firstPid = server.pid();
            server.command("SET", "survives", "restart");

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(firstPid);
            assertThat(server.command("GET", "survives")).isEqualTo("restart");
        }
    }

    @Test
    void aKilledServerRestartsWithEveryFsyncedWrite() {
        try (RedisServer server = RedisServer.start(DURABLE)) {
            server.command("SET", "survives", "crash");

            server.kill();
            assertThat(server.isRunning()).isFalse();
            server.restart();

            assertThat(server.command("GET", "survives")).isEqualTo("crash");
        }
    }

    @Test
    void restartFailsClearlyWhenAnotherProcessTookThePort() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            server.stop();
            try (ServerSocket squatter = new ServerSocket()) {
                squatter.bind(new InetSocketAddress(server.host(), server.port()));

                assertThatThrownBy(server::restart)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("port " + server.port())
                        .rootCause().hasMessageContaining("Address already in use");
            }
            assertThat(server.isRunning()).isFalse();
        }
    }

    @Test
    void closeStopsTheProcessAndDeletesItsTemporaryDirectory() {
        RedisServer server = RedisServer.start();
        Path dir = server.dataDir();
        long pid = server.pid();

        server.close();

        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(dir).doesNotExist();
    }

    @Test
    void aCallerSuppliedDataDirectoryIsKeptAfterClose(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("redis");
        try (RedisServer server = RedisServer.start(RedisServerOptions.defaults().withDataDir(data))) {
            assertThat(server.dataDir()).isEqualTo(data.toAbsolutePath());
        }
        assertThat(data.resolve("redis.log")).exists();
        assertThat(Files.readString(data.resolve("redis.log"))).contains("Ready to accept connections");
    }

    @Test
    void aServerThatCannotStartFailsWithItsLogTail() {
        RedisServerOptions broken = RedisServerOptions.defaults().withArgs("--no-such-directive", "1");

        assertThatThrownBy(() -> RedisServer.start(broken))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("no-such-directive");
    }

    @Test
    void optionsRefuseArgumentsTheHelperManages() {
        assertThatThrownBy(() -> RedisServerOptions.defaults().withArgs("--port", "7000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--port");
        assertThatThrownBy(() -> RedisServerOptions.defaults().withArgs("--dir", "/tmp"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withDataDir");
    }
}
