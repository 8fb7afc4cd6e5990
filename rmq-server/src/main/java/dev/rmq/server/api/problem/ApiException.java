package dev.rmq.server.api.problem;

import org.jspecify.annotations.Nullable;
import org.springframework.http.ProblemDetail;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the API refuses, with the problem type to answer and a detail that says what was wrong and what is
 * allowed. Thrown by the controllers where they check input before rmq does, so that the answer can name the
 * specific problem rather than a generic bad argument.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Problem problem;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    public ApiException(Problem problem, String detail) {
        super(detail);
        this.problem = problem;
    }

    public ApiException(Problem problem, @Nullable String detail, Throwable cause) {
        super(detail, cause);
        this.problem = problem;
    }

    /** The same exception with one more member of the problem, such as the index of a message in a batch. */
    public ApiException with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    public Problem problem() {
        return problem;
    }

    public ProblemDetail toProblemDetail() {
        ProblemDetail detail = problem.with(getMessage());
        properties.forEach(detail::setProperty);
        return detail;
    }
}
