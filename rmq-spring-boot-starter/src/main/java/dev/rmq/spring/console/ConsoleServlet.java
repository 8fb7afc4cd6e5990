package dev.rmq.spring.console;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.security.Principal;
import java.util.HashMap;
import java.util.Map;

/**
 * The console on a servlet web server: a servlet of the application's own, so that whatever filters guard the
 * application (Spring Security's among them) guard it too. It hands each request to the {@link ConsoleHandler}.
 */
final class ConsoleServlet extends HttpServlet {

    private final transient ConsoleHandler handler;
    private final transient CsrfTokens csrf = new CsrfTokens(CsrfTokens.SERVLET);

    ConsoleServlet(ConsoleHandler handler) {
        this.handler = handler;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ConsoleReply reply = handler.handle(call(request));
        response.setStatus(reply.status());
        response.setContentType(reply.contentType());
        reply.headers().forEach(response::setHeader);
        if (!"HEAD".equals(request.getMethod())) {
            response.getOutputStream().write(reply.body());
        }
    }

    private ConsoleCall call(HttpServletRequest request) throws IOException {
        Map<String, String> parameters = new HashMap<>();
        request.getParameterMap().forEach((name, values) -> parameters.put(name, values.length == 0 ? "" : values[0]));
        String uri = request.getRequestURI();
        Principal principal = request.getUserPrincipal();
        Object mayWrite = request.getAttribute(RmqDashboardProperties.CALLER_MAY_WRITE);
        String[] token = csrf.read(request.getAttribute(CsrfTokens.SERVLET_ATTRIBUTE));
        String path = request.getPathInfo();
        return new ConsoleCall(request.getMethod(), path == null ? "" : path, uri.substring(uri.lastIndexOf('/') + 1),
                parameters, request::getHeader, mayWrite instanceof Boolean allowed ? allowed : null,
                principal == null ? null : principal.getName(), request.getRemoteAddr(),
                token == null ? null : token[0], token == null ? null : token[1],
                "POST".equals(request.getMethod()) ? request.getInputStream().readAllBytes() : new byte[0]);
    }
}
