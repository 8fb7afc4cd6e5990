package dev.rmq.spring.console;

import dev.rmq.exceptions.RmqUnavailableException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The console under its path, whatever web stack carries it: the pages (whole, or only their main part when the
 * page's script refreshes it), the assets from the jar, and the writes, posted as JSON to {@code actions}. Every link
 * is relative, so the console works under any prefix a proxy puts in front of it. It calls Redis, and so blocks: a
 * reactive stack runs it off its event loop.
 */
final class ConsoleHandler {

    private static final Logger log = LoggerFactory.getLogger(ConsoleHandler.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Nothing runs or loads but what the console serves itself; no page may frame it. */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final Map<String, String> SECURITY = Map.of("Content-Security-Policy", POLICY,
            "X-Content-Type-Options", "nosniff", "Referrer-Policy", "same-origin", "X-Frame-Options", "DENY");
    private static final String FRAGMENT_HEADER = "X-Rmq-Fragment";
    private static final String HTML = "text/html;charset=utf-8";
    private static final Map<String, String> ASSETS = Map.of("/assets/console.css", "text/css;charset=utf-8",
            "/assets/console.js", "text/javascript;charset=utf-8");

    private final ConsoleData data;
    private final ConsoleHistory history;
    private final ConsoleActions actions;
    private final ConsoleAccess access;
    private final @Nullable ConsoleJournal journal;
    private final long refreshMs;

    /** @param journal the application's journal, null without one */
    ConsoleHandler(ConsoleData data, ConsoleHistory history, ConsoleAccess access, @Nullable ConsoleJournal journal,
                   long refreshMs) {
        this.data = data;
        this.history = history;
        this.actions = new ConsoleActions(data, journal);
        this.access = access;
        this.journal = journal;
        this.refreshMs = refreshMs;
    }

    ConsoleReply handle(ConsoleCall call) {
        return switch (call.method()) {
            case "GET", "HEAD" -> get(call);
            case "POST" -> post(call);
            default -> reply(405, false, "the console answers GET, and POST at actions");
        };
    }

    private ConsoleReply get(ConsoleCall call) {
        String path = call.path();
        if (path.isEmpty()) {
            // the root with its slash, so that the pages' relative links resolve under it
            return new ConsoleReply(302, HTML, with("Location", call.lastSegment() + "/"), new byte[0]);
        }
        if (ASSETS.containsKey(path)) {
            return asset(path);
        }
        String[] parts = path.substring(1).split("/", -1);
        ConsoleRequest page = access.pageRequest(call, "../".repeat(parts.length - 1), refreshMs, journal != null);
        int status = 200;
        String title;
        String main;
        try {
            if (path.equals("/")) {
                title = "Topics";
                main = OverviewPage.main(data, history, page);
            } else if (path.equals("/lookup")) {
                title = "Find a message";
                main = MessagePage.main(data, page, call.parameter("topic"), call.parameter("key"),
                        orEmpty(call.parameter("basis")));
            } else if (path.equals("/journal") && journal != null) {
                title = "Journal";
                main = JournalPage.main(journal, page);
            } else if (parts.length == 2 && parts[0].equals("topics")) {
                title = parts[1];
                main = TopicPage.main(data, history, page, parts[1], listed(call.parameter("next")));
            } else if (parts.length == 3 && parts[0].equals("topics") && parts[2].equals("dead")) {
                title = "Dead queue of " + parts[1];
                main = DeadPage.main(data, page, parts[1], orEmpty(call.parameter("filter")),
                        offset(call.parameter("offset")));
            } else {
                title = "Not found";
                status = 404;
                main = "<h1>Not found</h1><p>The console has no page here.</p>";
            }
        } catch (IllegalArgumentException e) {
            title = "Not found";
            status = 404;
            main = "<h1>Not found</h1><p>" + Html.escape(String.valueOf(e.getMessage())) + "</p>";
        } catch (RmqUnavailableException e) {
            title = "Redis is out of reach";
            status = 503;
            main = "<h1>Redis is out of reach</h1><p>" + Html.escape(String.valueOf(e.getMessage())) + "</p>";
        }
        boolean fragment = "1".equals(call.header(FRAGMENT_HEADER));
        String body = fragment ? main : Layout.page(page, title, main);
        return new ConsoleReply(status, HTML, with("Cache-Control", "no-store"), body.getBytes(StandardCharsets.UTF_8));
    }

    private ConsoleReply post(ConsoleCall call) {
        if (!"/actions".equals(call.path())) {
            return reply(404, false, "the console takes writes at actions only");
        }
        String refusal = access.refusal(call);
        if (refusal != null) {
            log.warn("the rmq console refused a write from {}: {}", call.who(), refusal);
            return reply(403, false, refusal);
        }
        ConsoleActions.Request asked;
        try {
            asked = parse(call.body());
        } catch (RuntimeException e) {
            return reply(400, false, "a write is JSON with action, topic, and key, slot or at as the action needs: "
                    + e.getMessage());
        }
        try {
            return reply(200, true, actions.perform(asked, call.who()));
        } catch (IllegalArgumentException e) {
            return reply(400, false, String.valueOf(e.getMessage()));
        } catch (RmqUnavailableException e) {
            return reply(503, false, String.valueOf(e.getMessage()));
        }
    }

    private static ConsoleActions.Request parse(byte[] body) {
        JsonNode json = JSON.readTree(body);
        JsonNode slot = json.path("slot");
        return new ConsoleActions.Request(json.path("action").asString(""), json.path("topic").asString(""),
                json.path("key").asString(""), slot.isNumber() ? Integer.valueOf(slot.asInt())
                : slot.isString() && !slot.asString().isEmpty() ? Integer.valueOf(slot.asString()) : null,
                json.path("at").asString(""), json.path("basis").asString(""));
    }

    private static ConsoleReply reply(int status, boolean ok, String message) {
        return new ConsoleReply(status, "application/json", with("Cache-Control", "no-store"),
                JSON.writeValueAsBytes(Map.of("ok", ok, "message", message)));
    }

    /** The security headers, and one more. */
    private static Map<String, String> with(String name, String value) {
        Map<String, String> headers = new java.util.LinkedHashMap<>(SECURITY);
        headers.put(name, value);
        return headers;
    }

    private static ConsoleReply asset(String path) {
        String type = ASSETS.get(path);
        try (InputStream in = ConsoleHandler.class.getResourceAsStream(path.replace("/assets/", ""))) {
            if (in == null || type == null) {
                return reply(404, false, "no such asset");
            }
            return new ConsoleReply(200, type, with("Cache-Control", "max-age=300"), in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String orEmpty(@Nullable String value) {
        return value == null ? "" : value;
    }

    /** How many messages a topic page lists: {@code next} when it is a number from 1 to the most, else the default. */
    private static int listed(@Nullable String value) {
        try {
            int asked = value == null ? TopicPage.LISTED : Integer.parseInt(value);
            return asked >= 1 && asked <= TopicPage.MOST_LISTED ? asked : TopicPage.LISTED;
        } catch (NumberFormatException e) {
            return TopicPage.LISTED;
        }
    }

    private static int offset(@Nullable String value) {
        try {
            return value == null ? 0 : Math.max(0, Integer.parseInt(value));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
