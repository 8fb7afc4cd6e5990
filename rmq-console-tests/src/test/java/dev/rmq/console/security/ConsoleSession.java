package dev.rmq.console.security;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A browser of one user on the console: its session cookie kept, its credentials sent with every request, and the
 * CSRF token its last page carried sent back with a write, as the console's script does.
 */
final class ConsoleSession {

    private static final Pattern META = Pattern.compile("<meta name=\"rmq-csrf-(header|token)\" content=\"([^\"]*)\">");

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    private final URI root;
    private final String authorization;
    private String csrfHeader = "";
    private String csrfToken = "";

    ConsoleSession(int port, String user, String password) {
        this.root = URI.create("http://127.0.0.1:" + port + "/rmq/");
        this.authorization = password == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    String csrfHeader() {
        return csrfHeader;
    }

    String csrfToken() {
        return csrfToken;
    }

    HttpResponse<String> page(String relative) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(root.resolve(relative)).GET());
        Matcher meta = META.matcher(response.body());
        while (meta.find()) {
            if (meta.group(1).equals("header")) {
                csrfHeader = meta.group(2);
            } else {
                csrfToken = meta.group(2);
            }
        }
        return response;
    }

    /** A write as the console's script sends it, with the CSRF token of the last page when {@code withToken}. */
    HttpResponse<String> act(String json, boolean withToken) throws IOException, InterruptedException {
        List<String> headers = new ArrayList<>(List.of("Content-Type", "application/json", "X-Rmq-Console", "1",
                "Sec-Fetch-Site", "same-origin"));
        if (withToken) {
            headers.addAll(List.of(csrfHeader, csrfToken));
        }
        return send(HttpRequest.newBuilder(root.resolve("actions")).POST(HttpRequest.BodyPublishers.ofString(json))
                .headers(headers.toArray(String[]::new)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        // a console that never answers fails the test, rather than leaving the build waiting for it
        request.timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
