package dev.rmq.spring.actuate;

import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import java.io.IOException;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** A write the endpoint's access refuses is answered with a reason; everything else passes through untouched. */
class RmqEndpointWriteFilterTests {

    @Test
    void aRefusedWriteIsAProblemDetailThatSaysWhatToSet() throws ServletException, IOException {
        MockHttpServletResponse response = run(filter(() -> "/actuator/rmq", false),
                "POST", "/app", "/app/actuator/rmq/topics/orders/pause");

        assertThat(response.getStatus()).isEqualTo(403);
        assertThat(response.getContentType()).startsWith("application/problem+json");
        assertThat(response.getContentAsString()).contains("management.endpoint.rmq.access=UNRESTRICTED")
                .contains("\"status\":403").contains("/app/actuator/rmq/topics/orders/pause");
    }

    @Test
    void readsOtherPathsAndAllowedWritesPassThrough() throws ServletException, IOException {
        RmqEndpointWriteFilter readOnly = filter(() -> "/actuator/rmq", false);
        assertThat(run(readOnly, "GET", "", "/actuator/rmq").getStatus()).isEqualTo(200);
        assertThat(run(readOnly, "POST", "", "/actuator/rmqx").getStatus()).isEqualTo(200);
        assertThat(run(readOnly, "DELETE", "", "/orders/1").getStatus()).isEqualTo(200);
        assertThat(run(filter(() -> "/actuator/rmq", true), "DELETE", "",
                "/actuator/rmq/dead/orders").getStatus()).isEqualTo(200);
        assertThat(run(filter(() -> null, false), "POST", "",
                "/actuator/rmq/topics/orders/pause").getStatus()).isEqualTo(200);
    }

    private static RmqEndpointWriteFilter filter(Supplier<String> path, boolean writesAllowed) {
        return new RmqEndpointWriteFilter("rmq", "pause, resume and requeue", path, () -> writesAllowed);
    }

    private static MockHttpServletResponse run(RmqEndpointWriteFilter filter, String method, String contextPath,
                                               String uri) throws ServletException, IOException {
        MockHttpServletRequest request = new MockHttpServletRequest(method, uri);
        request.setContextPath(contextPath);
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        filter.doFilter(request, response, chain);
        assertThat(chain.getRequest() != null).isEqualTo(response.getStatus() == 200);
        return response;
    }
}
