package dev.rmq.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Just enough RESP2 to drive a test server, so this module needs no Redis client library (and the
 * client under test is never the thing that sets up its own fixture).
 */
final class Resp {

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private Resp() {
    }

    /** One command on a fresh connection; a connection per call keeps this thread-safe and restart-proof. */
    static @Nullable Object call(String host, int port, Duration readTimeout, String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        writeAscii(buffer, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buffer, "$" + bytes.length + "\r\n");
            buffer.writeBytes(bytes);
            writeAscii(buffer, "\r\n");
        }
        return buffer.toByteArray();
    }

    /** String, Long, List&lt;Object&gt; or null; an error reply becomes {@link RedisReplyException}. */
    static @Nullable Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("Connection closed before a reply arrived");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RedisReplyException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length != length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("Truncated bulk string");
                }
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<@Nullable Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    // Errors nested in arrays (e.g. inside EXEC) are values, not failures of the whole call.
                    try {
                        items.add(read(in));
                    } catch (RedisReplyException e) {
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type byte '" + (char) type + "' followed by: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("Connection closed in the middle of a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static void writeAscii(ByteArrayOutputStream buffer, String s) {
        buffer.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }
}
