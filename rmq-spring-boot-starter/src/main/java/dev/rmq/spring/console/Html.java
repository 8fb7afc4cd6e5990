package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Writing the console's HTML: every value from Redis or a request goes through {@link #text} or {@link #attr}. */
final class Html {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final StringBuilder out = new StringBuilder(4096);

    /** Markup written as it is: only the console's own constants. */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Text, escaped for an element's content. */
    Html text(@Nullable Object value) {
        out.append(escape(String.valueOf(value)));
        return this;
    }

    /** An element with escaped text. */
    Html el(String tag, @Nullable Object value) {
        return raw("<" + tag + ">").text(value).raw("</" + tag.split(" ")[0] + ">");
    }

    /** A link to {@code href}, a URL the console built (see {@link #segment}), with escaped text. */
    Html link(String href, @Nullable Object value) {
        return raw("<a href=\"" + escape(href) + "\">").text(value).raw("</a>");
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** Escaped for an element's content or a quoted attribute's value. */
    static String attr(@Nullable Object value) {
        return escape(String.valueOf(value));
    }

    static String escape(String value) {
        StringBuilder escaped = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /** One path segment or query value, percent-encoded. */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String time(Instant instant) {
        return TIME.format(instant);
    }

    /** A duration as people read it: 850 ms, 12.4 s, 3 min 5 s, 2 h 10 min. */
    static String duration(Duration duration) {
        long ms = duration.toMillis();
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        if (ms < 3_600_000) {
            return (ms / 60_000) + " min " + (ms % 60_000 / 1000) + " s";
        }
        return (ms / 3_600_000) + " h " + (ms % 3_600_000 / 60_000) + " min";
    }
}
