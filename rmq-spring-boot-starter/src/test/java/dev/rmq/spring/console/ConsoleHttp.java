package dev.rmq.spring.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The console over real HTTP, as a browser's requests reach it: no redirect followed, headers as given. */
final class ConsoleHttp {

    private static final Pattern LINK = Pattern.compile("(?<![\\w-])(?:href|src|action)=\"([^\"]*)\"");

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String root;

    /** @param root the console's root, such as {@code http://127.0.0.1:8080/rmq/} */
    ConsoleHttp(String root) {
        this.root = root;
    }

    URI uri(String relative) {
        return URI.create(root).resolve(relative);
    }

    HttpResponse<String> get(String relative, String... headers) {
        return send(HttpRequest.newBuilder(uri(relative)).GET(), headers);
    }

    HttpResponse<String> get(URI uri, String... headers) {
        return send(HttpRequest.newBuilder(uri).GET(), headers);
    }

    /** A write as the console's own script sends it: JSON, its header, from its own origin. */
    HttpResponse<String> act(String json) {
        return post(json, "Content-Type", "application/json", ConsoleAccess.WRITE_HEADER, "1",
                "Sec-Fetch-Site", "same-origin");
    }

    HttpResponse<String> post(String body, String... headers) {
        return send(HttpRequest.newBuilder(uri("actions")).POST(HttpRequest.BodyPublishers.ofString(body)), headers);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every link, asset and form target of a page, as written. */
    static List<String> links(String html) {
        List<String> links = new ArrayList<>();
        Matcher matcher = LINK.matcher(html);
        while (matcher.find()) {
            links.add(matcher.group(1).replace("&amp;", "&"));
        }
        return links;
    }
}
