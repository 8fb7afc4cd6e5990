package dev.rmq.spring.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * A reverse proxy on a loopback port that serves the application under a prefix the application does not know
 * ({@code /ops/rmq/...} to {@code /rmq/...}), telling it the prefix in {@code X-Forwarded-Prefix}, as a gateway does.
 */
final class PrefixProxy implements AutoCloseable {

    private static final List<String> FORWARDED = List.of("Content-Type", ConsoleAccess.WRITE_HEADER, "Sec-Fetch-Site",
            "X-Rmq-Fragment");
    private static final List<String> RETURNED = List.of("Content-Type", "Location", "Content-Security-Policy");

    private final HttpServer server;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    private PrefixProxy(HttpServer server) {
        this.server = server;
    }

    /** A proxy that serves {@code target} (scheme, host and port) under {@code prefix}. */
    static PrefixProxy start(String prefix, String target) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        PrefixProxy proxy = new PrefixProxy(server);
        server.createContext(prefix + "/", exchange -> proxy.forward(exchange, prefix, target));
        server.start();
        return proxy;
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void forward(HttpExchange exchange, String prefix, String target) throws IOException {
        try (exchange) {
            URI uri = exchange.getRequestURI();
            String path = uri.getRawPath().substring(prefix.length());
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + path
                            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(
                            exchange.getRequestBody().readAllBytes()))
                    .header("X-Forwarded-Prefix", prefix);
            for (String name : FORWARDED) {
                String value = exchange.getRequestHeaders().getFirst(name);
                if (value != null) {
                    request.header(name, value);
                }
            }
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            for (String name : RETURNED) {
                response.headers().firstValue(name).ifPresent(value -> exchange.getResponseHeaders().set(name, value));
            }
            exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1
                    : response.body().length);
            exchange.getResponseBody().write(response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException(e));
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
