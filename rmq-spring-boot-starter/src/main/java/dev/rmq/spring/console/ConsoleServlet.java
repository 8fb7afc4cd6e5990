package dev.rmq.spring.console;

import dev.rmq.exceptions.RmqUnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Serves the console under its path: the pages (whole, or only their main part when the page's script refreshes
 * it), the assets from the jar, and the writes, posted as JSON to {@code actions}. Every link is relative, so the
 * console works under any prefix a proxy puts in front of it.
 */
final class ConsoleServlet extends HttpServlet {

    private static final Logger log = LoggerFactory.getLogger(ConsoleServlet.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Nothing runs or loads but what the console serves itself; no page may frame it. */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final String FRAGMENT_HEADER = "X-Rmq-Fragment";
    private static final Map<String, String> ASSETS = Map.of("/assets/console.css", "text/css;charset=utf-8",
            "/assets/console.js", "text/javascript;charset=utf-8");

    private final transient ConsoleData data;
    private final transient ConsoleHistory history;
    private final transient ConsoleActions actions;
    private final transient ConsoleAccess access;
    private final transient @Nullable ConsoleJournal journal;
    private final long refreshMs;

    /** @param journal the application's journal, null without one */
    ConsoleServlet(ConsoleData data, ConsoleHistory history, ConsoleAccess access, @Nullable ConsoleJournal journal,
                   long refreshMs) {
        this.data = data;
        this.history = history;
        this.actions = new ConsoleActions(data, journal);
        this.access = access;
        this.journal = journal;
        this.refreshMs = refreshMs;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        secure(response);
        String path = request.getPathInfo();
        if (path == null || path.isEmpty()) {
            // the root with its slash, so that the pages' relative links resolve under it
            String uri = request.getRequestURI();
            response.setStatus(HttpServletResponse.SC_FOUND);
            response.setHeader("Location", uri.substring(uri.lastIndexOf('/') + 1) + "/");
            return;
        }
        if (ASSETS.containsKey(path)) {
            asset(path, response);
            return;
        }
        String[] parts = path.substring(1).split("/", -1);
        ConsoleRequest page = access.pageRequest(request, "../".repeat(parts.length - 1), refreshMs, journal != null);
        int status = HttpServletResponse.SC_OK;
        String title;
        String main;
        try {
            if (path.equals("/")) {
                title = "Topics";
                main = OverviewPage.main(data, history, page);
            } else if (path.equals("/lookup")) {
                title = "Find a message";
                main = MessagePage.main(data, page, request.getParameter("topic"), request.getParameter("key"),
                        orEmpty(request.getParameter("basis")));
            } else if (path.equals("/journal") && journal != null) {
                title = "Journal";
                main = JournalPage.main(journal, page);
            } else if (parts.length == 2 && parts[0].equals("topics")) {
                title = parts[1];
                main = TopicPage.main(data, history, page, parts[1], listed(request.getParameter("next")));
            } else if (parts.length == 3 && parts[0].equals("topics") && parts[2].equals("dead")) {
                title = "Dead queue of " + parts[1];
                main = DeadPage.main(data, page, parts[1], orEmpty(request.getParameter("filter")),
                        offset(request.getParameter("offset")));
            } else {
                title = "Not found";
                status = HttpServletResponse.SC_NOT_FOUND;
                main = "<h1>Not found</h1><p>The console has no page here.</p>";
            }
        } catch (IllegalArgumentException e) {
            title = "Not found";
            status = HttpServletResponse.SC_NOT_FOUND;
            main = "<h1>Not found</h1><p>" + Html.escape(String.valueOf(e.getMessage())) + "</p>";
        } catch (RmqUnavailableException e) {
            title = "Redis is out of reach";
            status = HttpServletResponse.SC_SERVICE_UNAVAILABLE;
            main = "<h1>Redis is out of reach</h1><p>" + Html.escape(String.valueOf(e.getMessage())) + "</p>";
        }
        response.setStatus(status);
        response.setContentType("text/html;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        boolean fragment = "1".equals(request.getHeader(FRAGMENT_HEADER));
        response.getWriter().write(fragment ? main : Layout.page(page, title, main));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        secure(response);
        if (!"/actions".equals(request.getPathInfo())) {
            reply(response, HttpServletResponse.SC_NOT_FOUND, false, "the console takes writes at actions only");
            return;
        }
        String refusal = access.refusal(request);
        if (refusal != null) {
            log.warn("the rmq console refused a write from {}: {}", ConsoleAccess.who(request), refusal);
            reply(response, HttpServletResponse.SC_FORBIDDEN, false, refusal);
            return;
        }
        ConsoleActions.Request asked;
        try {
            asked = parse(request);
        } catch (RuntimeException e) {
            reply(response, HttpServletResponse.SC_BAD_REQUEST, false, "a write is JSON with action, topic, and key,"
                    + " slot or at as the action needs: " + e.getMessage());
            return;
        }
        try {
            reply(response, HttpServletResponse.SC_OK, true, actions.perform(asked, ConsoleAccess.who(request)));
        } catch (IllegalArgumentException e) {
            reply(response, HttpServletResponse.SC_BAD_REQUEST, false, String.valueOf(e.getMessage()));
        } catch (RmqUnavailableException e) {
            reply(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, false, String.valueOf(e.getMessage()));
        }
    }

    private static ConsoleActions.Request parse(HttpServletRequest request) throws IOException {
        JsonNode body = JSON.readTree(request.getInputStream());
        JsonNode slot = body.path("slot");
        return new ConsoleActions.Request(body.path("action").asString(""), body.path("topic").asString(""),
                body.path("key").asString(""), slot.isNumber() ? Integer.valueOf(slot.asInt())
                : slot.isString() && !slot.asString().isEmpty() ? Integer.valueOf(slot.asString()) : null,
                body.path("at").asString(""), body.path("basis").asString(""));
    }

    private static void reply(HttpServletResponse response, int status, boolean ok, String message)
            throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        response.getOutputStream().write(JSON.writeValueAsBytes(Map.of("ok", ok, "message", message)));
    }

    private static void secure(HttpServletResponse response) {
        response.setHeader("Content-Security-Policy", POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "same-origin");
        response.setHeader("X-Frame-Options", "DENY");
    }

    private static void asset(String path, HttpServletResponse response) throws IOException {
        try (InputStream in = ConsoleServlet.class.getResourceAsStream(path.replace("/assets/", ""))) {
            if (in == null) {
                response.sendError(HttpServletResponse.SC_NOT_FOUND);
                return;
            }
            response.setContentType(ASSETS.get(path));
            response.setHeader("Cache-Control", "max-age=300");
            in.transferTo(response.getOutputStream());
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
