package dev.rmq;

import dev.rmq.embedded.RedisServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.awaitility.Awaitility.await;

/**
 * The commands clients send a redis-server, as its MONITOR reports them, without those that scripts run: what a
 * test counts to show that a consumer spares a round trip. Reads on a thread of its own until closed.
 */
public final class CommandMonitor implements AutoCloseable {

    private static final int HANDSHAKE_TIMEOUT_MS = 5_000;

    private final RedisServer redis;
    private final Socket socket;
    private final Queue<String> lines = new ConcurrentLinkedQueue<>();

    private CommandMonitor(RedisServer redis, Socket socket) throws IOException {
        this.redis = redis;
        this.socket = socket;
        socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
        socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IOException("MONITOR answered " + ok);
        }
        socket.setSoTimeout(0);
        Thread reader = new Thread(() -> {
            try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    // a script's commands come as [db lua]; a client's as [db host:port]
                    if (!line.contains(" lua] ")) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "command-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts monitoring {@code redis}: what clients send from now on. */
    public static CommandMonitor of(RedisServer redis) {
        Socket socket = null;
        try {
            socket = new Socket(redis.host(), redis.port());
            return new CommandMonitor(redis, socket);
        } catch (IOException e) {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new UncheckedIOException(e);
        }
    }

    /**
     * How many times clients sent {@code command} (upper case, as MONITOR quotes it) with {@code text} in its
     * arguments, up to now: a mark sent now is awaited first, so that every command sent before it is counted.
     */
    public long count(String command, String text) {
        String mark = "command-monitor-" + UUID.randomUUID();
        redis.command("ECHO", mark);
        await().atMost(Duration.ofSeconds(5)).until(() -> lines.stream().anyMatch(line -> line.contains(mark)));
        String quoted = "] \"" + command + "\"";
        return lines.stream().filter(line -> line.contains(quoted) && line.contains(text)).count();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
