package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

import java.net.URI;

/**
 * Who may act through the console, and whether a write comes from its own pages. With Spring Security, the
 * application's own rules decide who reaches the console and who may post to it, and its CSRF token guards every
 * write. Without it, the console acts only when told to, and then only on a request its own script sent from a page
 * of the same origin: a cross-site form can neither set the console's header nor hide where it comes from.
 */
final class ConsoleAccess {

    /** The header the console's script sets on every write, which a cross-site form cannot. */
    static final String WRITE_HEADER = "X-Rmq-Console";

    private final boolean writes;

    /** @param writes whether the console acts at all */
    ConsoleAccess(boolean writes) {
        this.writes = writes;
    }

    /** Whether the console acts at all, and this caller may make it (see {@link RmqDashboardProperties#CALLER_MAY_WRITE}). */
    boolean writes(ConsoleCall call) {
        return writes && !Boolean.FALSE.equals(call.mayWrite());
    }

    /** Why the write may not go on, or null when it may. */
    @Nullable String refusal(ConsoleCall call) {
        if (!writes) {
            return "the console is read-only: with Spring Security on the classpath its writes are on unless"
                    + " rmq.dashboard.write-operations-enabled=false; without it, set that property to true";
        }
        if (!writes(call)) {
            return "these credentials may only read the console";
        }
        if (!"1".equals(call.header(WRITE_HEADER))) {
            return "a write comes from the console's own pages, which send the " + WRITE_HEADER + " header";
        }
        String site = call.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin")) {
            return "a write comes from a page of the console's own origin; this one came from a " + site + " page";
        }
        String origin = call.header("Origin");
        if (site == null && origin != null && !sameOrigin(origin, call)) {
            return "a write comes from a page of the console's own origin; this one came from " + origin;
        }
        return null;
    }

    /** Whether the Origin header names the host the request was sent to (as a proxy forwards it, if one did). */
    private static boolean sameOrigin(String origin, ConsoleCall call) {
        String host = call.header("X-Forwarded-Host");
        if (host == null) {
            host = call.header("Host");
        }
        if (host == null) {
            return false;
        }
        try {
            URI uri = URI.create(origin);
            String authority = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
            return authority != null && (authority.equalsIgnoreCase(host.split(",")[0].trim())
                    || (uri.getPort() < 0 && host.equalsIgnoreCase(uri.getHost() + ":" + defaultPort(uri))));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static int defaultPort(URI uri) {
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /** What a page needs to know of the call: where it is, whether it shows controls, and the CSRF token. */
    ConsoleRequest pageRequest(ConsoleCall call, String base, long refreshMs, boolean journal) {
        return new ConsoleRequest(base, writes(call), call.csrfHeader(), call.csrfToken(), refreshMs, journal);
    }
}
