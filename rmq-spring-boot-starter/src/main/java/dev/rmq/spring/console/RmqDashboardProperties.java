package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The web console ({@code rmq.dashboard.*}).
 *
 * @param enabled                whether the application serves it; off unless set
 * @param path                   where, on the application's own web server: a path such as {@code /rmq}
 * @param writeOperationsEnabled whether its pages may act (pause, requeue, cancel...): by default only when Spring
 *                               Security guards the application, whose rules then decide who may; without it, only
 *                               when set, and then only from pages of the same origin
 * @param refresh                how often pages refresh, and how long what they read from Redis is reused: however
 *                               many pages are open, the console reads each topic's counts once per refresh
 * @param history                how far back the charts go; a sample is kept per refresh
 */
@ConfigurationProperties("rmq.dashboard")
public record RmqDashboardProperties(@DefaultValue("false") boolean enabled,
                                     @DefaultValue("/rmq") String path,
                                     @Nullable Boolean writeOperationsEnabled,
                                     @DefaultValue("5s") Duration refresh,
                                     @DefaultValue("1h") Duration history) {

    /**
     * A request attribute by which the application's own authentication says whether this caller may act through
     * the console: {@code Boolean.FALSE} hides the controls from its pages and refuses its writes, whatever
     * {@link #writeOperationsEnabled} says. rmq-server sets it from the scope of the caller's API key.
     */
    public static final String CALLER_MAY_WRITE = "dev.rmq.console.caller-may-write";

    public RmqDashboardProperties {
        if (!path.startsWith("/") || path.endsWith("/") || path.contains("*") || path.contains("?")) {
            throw new IllegalArgumentException("rmq.dashboard.path must start with '/', not end with one, and hold no"
                    + " '*' or '?', such as /rmq; was '" + path + "'");
        }
        if (refresh.compareTo(Duration.ofSeconds(1)) < 0 || refresh.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("rmq.dashboard.refresh must be from 1s to 5m, was " + refresh);
        }
        if (history.compareTo(refresh) < 0 || history.dividedBy(refresh) > 10_000) {
            throw new IllegalArgumentException("rmq.dashboard.history must be at least one refresh and at most 10,000"
                    + " of them (" + refresh + " each), was " + history);
        }
    }
}
