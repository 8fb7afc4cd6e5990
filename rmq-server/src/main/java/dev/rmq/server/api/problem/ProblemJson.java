package dev.rmq.server.api.problem;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * Writes a {@link ProblemDetail} as {@code application/problem+json}: its standard members, then its extra ones at
 * the top level, as RFC 9457 puts them. Rendered here rather than left to the message converter, so that the shape
 * does not depend on how the application's JSON mapper was built, and so that the API key filter, which answers
 * before Spring MVC is reached, writes exactly what the controllers write.
 */
@Component
public final class ProblemJson {

    private final JsonMapper mapper;

    public ProblemJson(JsonMapper mapper) {
        this.mapper = mapper;
    }

    public ObjectNode render(ProblemDetail problem) {
        ObjectNode node = mapper.createObjectNode();
        URI type = problem.getType();
        node.put("type", type == null ? "about:blank" : type.toString());
        if (problem.getTitle() != null) {
            node.put("title", problem.getTitle());
        }
        node.put("status", problem.getStatus());
        if (problem.getDetail() != null) {
            node.put("detail", problem.getDetail());
        }
        if (problem.getInstance() != null) {
            node.put("instance", problem.getInstance().toString());
        }
        Map<String, Object> properties = problem.getProperties();
        if (properties != null) {
            properties.forEach((name, value) -> {
                if (!node.has(name)) {
                    node.set(name, mapper.valueToTree(value));
                }
            });
        }
        return node;
    }

    /** The answer of a controller advice: the problem's status, these headers, and the problem as its body. */
    public ResponseEntity<JsonNode> response(ProblemDetail problem, HttpHeaders headers) {
        return ResponseEntity.status(problem.getStatus())
                .headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(render(problem));
    }

    /** Answers a servlet request with the problem, for code that runs before Spring MVC. */
    public void write(HttpServletResponse response, ProblemDetail problem) throws IOException {
        byte[] body = mapper.writeValueAsBytes(render(problem));
        response.setStatus(problem.getStatus());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
