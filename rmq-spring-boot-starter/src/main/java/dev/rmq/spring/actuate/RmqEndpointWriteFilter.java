package dev.rmq.spring.actuate;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Answers a write to one of rmq's endpoints ({@code rmq}, {@code rmqschedules}) that its access does not allow with a
 * problem detail that says how to enable writes, instead of the bare {@code 405} the missing operation would give.
 * Spring Boot leaves the write operations out of an endpoint when its access is read-only; this filter only explains
 * why.
 */
public final class RmqEndpointWriteFilter extends OncePerRequestFilter {

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final String endpointId;
    private final String writes;
    private final Supplier<String> endpointPath;
    private final BooleanSupplier writesAllowed;

    /**
     * @param endpointId    the endpoint's id, as in {@code management.endpoint.<id>.access}
     * @param writes        what its writes do, for the answer, such as {@code pause, resume and requeue}
     * @param endpointPath  the endpoint's path, such as {@code /actuator/rmq}, or null when it is not exposed over HTTP
     * @param writesAllowed whether the endpoint's access lets writes through
     */
    public RmqEndpointWriteFilter(String endpointId, String writes, Supplier<String> endpointPath,
                                  BooleanSupplier writesAllowed) {
        this.endpointId = endpointId;
        this.writes = writes;
        this.endpointPath = endpointPath;
        this.writesAllowed = writesAllowed;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        if (!WRITES.contains(request.getMethod())) {
            return true;
        }
        String path = endpointPath.get();
        if (path == null) {
            return true;
        }
        String uri = request.getRequestURI().substring(request.getContextPath().length());
        return !(uri.equals(path) || uri.startsWith(path + "/")) || writesAllowed.getAsBoolean();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"The " + endpointId + " endpoint is read-only\","
                + "\"status\":403,\"detail\":\"Writes to the " + endpointId + " endpoint (" + writes + ") are not allowed"
                + " by its access. Set management.endpoint." + endpointId + ".access=UNRESTRICTED to allow them, and"
                + " secure the endpoint, since they act for every application at once.\",\"instance\":\""
                + request.getRequestURI().replace("\"", "") + "\"}");
    }
}
