package dev.rmq.server.security;

import dev.rmq.server.api.problem.Problem;
import dev.rmq.server.api.problem.ProblemJson;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import dev.rmq.spring.console.RmqDashboardProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.Optional;

/**
 * Asks every request for one of the configured API keys, as {@code Authorization: Bearer <key>}, when any is
 * configured; a read-only key may only read (GET, HEAD). Only the health endpoint stays open, for load balancers
 * and orchestrators, and only at its plain path: a path with {@code ..}, {@code ;} or an escape is not taken for
 * it, whatever the servlet container makes of it, so that no spelling of another path slips through.
 *
 * <p>The web console takes the key from a browser too: HTTP Basic, the key as the password and any user name, which a
 * browser asks for once. A read-only key sees its pages without their controls; the key's name is the principal
 * its audit lines name.
 */
public final class ApiKeyFilter extends OncePerRequestFilter implements Ordered {

    /** Where the request attribute holds the name of the key that was used. */
    public static final String CALLER = ApiKeyFilter.class.getName() + ".caller";
    /** Before the dispatcher and after the request wrappers, where a security filter chain sits. */
    static final int ORDER = -100;

    private static final Logger log = LoggerFactory.getLogger(ApiKeyFilter.class);
    private static final String BEARER = "Bearer ";

    private static final String BASIC = "Basic ";

    private final ApiKeys keys;
    private final ProblemJson problems;
    private final String healthPath;
    private final @Nullable String consolePath;

    /**
     * @param healthPath  the path of the health endpoint, {@code /actuator/health} unless moved
     * @param consolePath the web console's path, null when it is off
     */
    public ApiKeyFilter(ApiKeys keys, ProblemJson problems, String healthPath, @Nullable String consolePath) {
        this.keys = keys;
        this.problems = problems;
        this.healthPath = healthPath;
        this.consolePath = consolePath;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !keys.enabled() || isHealth(request);
    }

    private boolean isHealth(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if (path.contains("..") || path.contains(";") || path.contains("%") || path.contains("//")) {
            return false;
        }
        return path.equals(healthPath) || path.startsWith(healthPath + "/");
    }

    private boolean isConsole(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return consolePath != null && (path.equals(consolePath) || path.startsWith(consolePath + "/"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        boolean console = isConsole(request);
        String key = key(request.getHeader(HttpHeaders.AUTHORIZATION), console);
        if (key == null) {
            String header = request.getHeader(HttpHeaders.AUTHORIZATION);
            refuse(request, response, Problem.UNAUTHORIZED, console, "this server needs an API key: send it as"
                    + " 'Authorization: Bearer <key>'" + (console ? ", or sign in to the console with the key as the"
                    + " password" : "") + ", a key of rmq.server.api-keys"
                    + (header == null ? "" : " (the Authorization header given holds no key)"));
            return;
        }
        Optional<ApiKeys.Caller> caller = keys.match(key);
        if (caller.isEmpty()) {
            log.debug("{} {} refused: the bearer token is not a configured API key", request.getMethod(),
                    request.getRequestURI());
            refuse(request, response, Problem.UNAUTHORIZED, console, "the bearer token is not one of the API keys"
                    + " this server accepts (rmq.server.api-keys)");
            return;
        }
        if (!caller.get().mayUse(request.getMethod())) {
            refuse(request, response, Problem.FORBIDDEN, false, "API key '" + caller.get().name() + "' is read-only:"
                    + " it may GET, but " + request.getMethod() + " changes what is queued and needs a read-write key");
            return;
        }
        request.setAttribute(CALLER, caller.get().name());
        request.setAttribute(RmqDashboardProperties.CALLER_MAY_WRITE, caller.get().mayUse("POST"));
        chain.doFilter(new NamedCaller(request, caller.get().name()), response);
    }

    /** The key a request carries: a bearer token, or on the console's paths a Basic password. Null for none. */
    private static @Nullable String key(@Nullable String header, boolean console) {
        if (header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return header.substring(BEARER.length()).strip();
        }
        if (console && header != null && header.regionMatches(true, 0, BASIC, 0, BASIC.length())) {
            try {
                String credentials = new String(Base64.getDecoder().decode(header.substring(BASIC.length()).strip()),
                        StandardCharsets.UTF_8);
                int colon = credentials.indexOf(':');
                return colon < 0 ? null : credentials.substring(colon + 1);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    /** The request as the key's name for its principal, which the console's audit lines name. */
    private static final class NamedCaller extends HttpServletRequestWrapper {

        private final Principal principal;

        NamedCaller(HttpServletRequest request, String name) {
            super(request);
            this.principal = () -> name;
        }

        @Override
        public Principal getUserPrincipal() {
            return principal;
        }
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, Problem type, boolean console,
                        String detail) throws IOException {
        ProblemDetail problem = type.with(detail);
        try {
            problem.setInstance(URI.create(request.getRequestURI()));
        } catch (IllegalArgumentException e) {
            // a path that is no valid URI reference: the problem is answered without its instance
        }
        if (type == Problem.UNAUTHORIZED) {
            // a browser asks for Basic credentials, and only for the console's pages
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, console ? "Basic realm=\"rmq console\", charset=\"UTF-8\""
                    : "Bearer realm=\"rmq\"");
        }
        problems.write(response, problem);
    }
}
