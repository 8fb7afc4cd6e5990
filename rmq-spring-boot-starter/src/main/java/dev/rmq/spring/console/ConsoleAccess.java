package dev.rmq.spring.console;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.net.URI;
import java.security.Principal;

/**
 * Who may act through the console, and whether a write comes from its own pages. With Spring Security, the
 * application's own rules decide who reaches the console and who may post to it, and its CSRF token guards every
 * write. Without it, the console acts only when told to, and then only on a request its own script sent from a page
 * of the same origin: a cross-site form can neither set the console's header nor hide where it comes from.
 */
final class ConsoleAccess {

    /** The header the console's script sets on every write, which a cross-site form cannot. */
    static final String WRITE_HEADER = "X-Rmq-Console";

    private static final String CSRF_ATTRIBUTE = "_csrf";

    private final boolean writes;
    private final @Nullable Method csrfHeader;
    private final @Nullable Method csrfToken;

    /**
     * @param writes          whether the console acts at all
     * @param springSecurity  Spring Security's CSRF token type, when it is on the classpath
     */
    ConsoleAccess(boolean writes, @Nullable Class<?> springSecurity) {
        this.writes = writes;
        try {
            this.csrfHeader = springSecurity == null ? null : springSecurity.getMethod("getHeaderName");
            this.csrfToken = springSecurity == null ? null : springSecurity.getMethod("getToken");
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("Spring Security's CsrfToken has no " + e.getMessage(), e);
        }
    }

    /** Whether the console acts at all, and this caller may make it (see {@link RmqDashboardProperties#CALLER_MAY_WRITE}). */
    boolean writes(HttpServletRequest request) {
        return writes && !Boolean.FALSE.equals(request.getAttribute(RmqDashboardProperties.CALLER_MAY_WRITE));
    }

    /** Why the write may not go on, or null when it may. */
    @Nullable String refusal(HttpServletRequest request) {
        if (!writes) {
            return "the console is read-only: with Spring Security on the classpath its writes are on unless"
                    + " rmq.dashboard.write-operations-enabled=false; without it, set that property to true";
        }
        if (!writes(request)) {
            return "these credentials may only read the console";
        }
        if (!"1".equals(request.getHeader(WRITE_HEADER))) {
            return "a write comes from the console's own pages, which send the " + WRITE_HEADER + " header";
        }
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin")) {
            return "a write comes from a page of the console's own origin; this one came from a " + site + " page";
        }
        String origin = request.getHeader("Origin");
        if (site == null && origin != null && !sameOrigin(origin, request)) {
            return "a write comes from a page of the console's own origin; this one came from " + origin;
        }
        return null;
    }

    /** Whether the Origin header names the host the request was sent to (as a proxy forwards it, if one did). */
    private static boolean sameOrigin(String origin, HttpServletRequest request) {
        String host = request.getHeader("X-Forwarded-Host");
        if (host == null) {
            host = request.getHeader("Host");
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

    /** Who asked, for the audit line: the principal's name, else the remote address. */
    static String who(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return principal != null ? principal.getName() : "anonymous at " + request.getRemoteAddr();
    }

    /** What a page needs to carry Spring Security's CSRF token, if the request has one. */
    ConsoleRequest pageRequest(HttpServletRequest request, String base, long refreshMs, boolean journal) {
        Method header = csrfHeader;
        Method value = csrfToken;
        Object token = header == null ? null : request.getAttribute(CSRF_ATTRIBUTE);
        if (token == null || header == null || value == null) {
            return new ConsoleRequest(base, writes(request), null, null, refreshMs, journal);
        }
        try {
            return new ConsoleRequest(base, writes(request), (String) header.invoke(token), (String) value.invoke(token),
                    refreshMs, journal);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not read Spring Security's CSRF token", e);
        }
    }
}
