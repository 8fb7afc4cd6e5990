package dev.rmq.server.security;

import dev.rmq.server.api.problem.Problem;
import dev.rmq.server.api.problem.ProblemJson;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

/**
 * Asks every request for one of the configured API keys, as {@code Authorization: Bearer <key>}, when any is
 * configured; a read-only key may only read (GET, HEAD). Only the health endpoint stays open, for load balancers
 * and orchestrators, and only at its plain path: a path with {@code ..}, {@code ;} or an escape is not taken for
 * it, whatever the servlet container makes of it, so that no spelling of another path slips through.
 */
public final class ApiKeyFilter extends OncePerRequestFilter implements Ordered {

    /** Where the request attribute holds the name of the key that was used. */
    public static final String CALLER = ApiKeyFilter.class.getName() + ".caller";
    /** Before the dispatcher and after the request wrappers, where a security filter chain sits. */
    static final int ORDER = -100;

    private static final Logger log = LoggerFactory.getLogger(ApiKeyFilter.class);
    private static final String BEARER = "Bearer ";

    private final ApiKeys keys;
    private final ProblemJson problems;
    private final String healthPath;

    /** @param healthPath the path of the health endpoint, {@code /actuator/health} unless moved */
    public ApiKeyFilter(ApiKeys keys, ProblemJson problems, String healthPath) {
        this.keys = keys;
        this.problems = problems;
        this.healthPath = healthPath;
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

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            refuse(request, response, Problem.UNAUTHORIZED, "this server needs an API key: send it as"
                    + " 'Authorization: Bearer <key>', a key of rmq.server.api-keys"
                    + (header == null ? "" : " (the Authorization header given is not a bearer token)"));
            return;
        }
        Optional<ApiKeys.Caller> caller = keys.match(header.substring(BEARER.length()).strip());
        if (caller.isEmpty()) {
            log.debug("{} {} refused: the bearer token is not a configured API key", request.getMethod(),
                    request.getRequestURI());
            refuse(request, response, Problem.UNAUTHORIZED, "the bearer token is not one of the API keys this server"
                    + " accepts (rmq.server.api-keys)");
            return;
        }
        if (!caller.get().mayUse(request.getMethod())) {
            refuse(request, response, Problem.FORBIDDEN, "API key '" + caller.get().name() + "' is read-only: it may"
                    + " GET, but " + request.getMethod() + " changes what is queued and needs a read-write key");
            return;
        }
        request.setAttribute(CALLER, caller.get().name());
        chain.doFilter(request, response);
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, Problem type, String detail)
            throws IOException {
        ProblemDetail problem = type.with(detail);
        try {
            problem.setInstance(URI.create(request.getRequestURI()));
        } catch (IllegalArgumentException e) {
            // a path that is no valid URI reference: the problem is answered without its instance
        }
        if (type == Problem.UNAUTHORIZED) {
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"rmq\"");
        }
        problems.write(response, problem);
    }
}
