package dev.rmq.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * rmq-server in a JVM of its own, as {@code java -jar} runs it, from the test's class path; and a client that sends
 * each request on a connection of its own (HTTP/1.0), as clients behind a connection-balancing proxy do, so that
 * every request may reach another server. {@link #close()} stops the process by its pid, forcibly if it does not
 * stop within ten seconds.
 */
final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private ServerProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts a server on {@code port} with these settings ({@code --name=value}) and waits until it serves. */
    static ServerProcess start(String name, int port, List<String> settings) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), RmqServerApplication.class.getName(),
                "--server.address=127.0.0.1", "--server.port=" + port));
        command.addAll(settings);
        Path log = Path.of("target", name + ".log");
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServerProcess server = new ServerProcess(process, port, log);
        try {
            server.awaitServing(Duration.ofSeconds(90));
        } catch (RuntimeException | IOException e) {
            server.close();
            throw e;
        }
        return server;
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    private void awaitServing(Duration patience) throws IOException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("rmq-server on port " + port + " exited with " + process.exitValue()
                        + " before it served; its log:\n" + Files.readString(log));
            }
            try {
                if (request(port, "GET", "/api/v1/topics", null).status() == 200) {
                    return;
                }
            } catch (UncheckedIOException e) {
                // not listening yet
            }
            try {
                process.waitFor(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while rmq-server started", e);
            }
        }
        throw new IllegalStateException("rmq-server on port " + port + " did not serve within " + patience
                + "; its log:\n" + Files.readString(log));
    }

    /** An answer: its status and its body. */
    record Answer(int status, String body) {
    }

    /** One request on a connection of its own, closed after the answer (HTTP/1.0, so no chunked body). */
    static Answer request(int port, String method, String path, String json) {
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                + (json == null ? "" : "Content-Type: application/json\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n";
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int headEnd = answer.indexOf("\r\n\r\n");
            if (!answer.startsWith("HTTP/") || headEnd < 0) {
                throw new UncheckedIOException(new IOException("not an HTTP answer: " + answer));
            }
            int status = Integer.parseInt(answer.substring(9, 12));
            return new Answer(status, answer.substring(headEnd + 4));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
