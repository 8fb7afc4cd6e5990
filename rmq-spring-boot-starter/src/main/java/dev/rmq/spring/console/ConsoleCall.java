package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.function.Function;

/**
 * One request to the console, as the web stack that carried it (a servlet, or WebFlux) hands it over: everything the
 * console reads of a request, read before the console runs.
 *
 * @param method        the HTTP method
 * @param path          the path below the console's own, {@code /} for its root; empty for the console's path
 *                      itself, which has no slash to resolve the pages' relative links against
 * @param lastSegment   the request path's last segment, for the redirect from the console's path to its root
 * @param parameters    the query parameters, the first value of each
 * @param header        a header's first value by its name, any case; null when absent
 * @param mayWrite      {@link RmqDashboardProperties#CALLER_MAY_WRITE} as the application's authentication set it,
 *                      null when it did not
 * @param principal     the authenticated caller's name, null for none
 * @param remoteAddress where the request came from
 * @param csrfHeader    the header Spring Security's CSRF token goes in, null without Spring Security
 * @param csrfToken     the token, for the page to carry; null without Spring Security
 * @param body          the request's body, empty for a GET
 */
record ConsoleCall(String method, String path, String lastSegment, Map<String, String> parameters,
                   Function<String, @Nullable String> header, @Nullable Boolean mayWrite, @Nullable String principal,
                   String remoteAddress, @Nullable String csrfHeader, @Nullable String csrfToken, byte[] body) {

    @Nullable String parameter(String name) {
        return parameters.get(name);
    }

    @Nullable String header(String name) {
        return header.apply(name);
    }

    /** Who asked, for the audit line: the principal's name, else the remote address. */
    String who() {
        return principal != null ? principal : "anonymous at " + remoteAddress;
    }
}
