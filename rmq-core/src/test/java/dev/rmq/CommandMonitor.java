package dev.rmq;

import dev.rmq.embedded.RedisServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The commands clients send a redis-server, as its MONITOR reports them, without those that scripts run: what a
 * test counts to show that a consumer spares a round trip. Reads on a thread of its own until closed.
 */
public final class CommandMonitor implements AutoCloseable {

    private final Socket socket;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private CommandMonitor(Socket socket) throws IOException {
        this.socket = socket;
        socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IllegalStateException("MONITOR answered " + ok);
        }
        reader = new Thread(() -> {
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
        try {
            return new CommandMonitor(new Socket(redis.host(), redis.port()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many times clients sent {@code command} (upper case, as MONITOR quotes it) so far. */
    public long count(String command) {
        String quoted = "] \"" + command + "\"";
        return lines.stream().filter(line -> line.contains(quoted)).count();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
