package dev.rmq.server;

import dev.rmq.server.api.problem.Problem;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.io.ClassPathResource;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document against the running server: every handler method of the API's controllers is an operation
 * of the document, with the same method and path, and every operation of the document is a handler method, so
 * neither can change without the other.
 */
@ServerTest
class OpenApiCoverageTests {

    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Value("${local.server.port}")
    int port;

    @Test
    void everyHandlerOfTheApiIsAnOperationOfTheDocumentAndNoOtherIs() throws IOException {
        JsonNode paths = document().path("paths");

        Set<String> handlers = handlerOperations();
        Set<String> documented = new TreeSet<>();
        for (String path : paths.propertyNames()) {
            for (String method : paths.path(path).propertyNames()) {
                if (HTTP_METHODS.contains(method)) {
                    documented.add(method.toUpperCase(Locale.ROOT) + " " + path);
                }
            }
        }

        assertThat(handlers).as("the API's handler methods").hasSizeGreaterThanOrEqualTo(20);
        assertThat(documented).as("operations of openapi.json").containsExactlyInAnyOrderElementsOf(handlers);
    }

    @Test
    void everyOperationDescribesItsAnswersAndItsProblems() throws IOException {
        JsonNode paths = document().path("paths");
        List<String> lacking = new ArrayList<>();
        for (String path : paths.propertyNames()) {
            for (String method : paths.path(path).propertyNames()) {
                JsonNode operation = paths.path(path).path(method);
                JsonNode responses = operation.path("responses");
                boolean success = responses.propertyNames().stream().anyMatch(status -> status.startsWith("2"));
                boolean problems = responses.propertyNames().stream().anyMatch(status -> status.startsWith("4")
                        || status.startsWith("5"));
                if (operation.path("summary").asString().isBlank() || !success || !problems) {
                    lacking.add(method + " " + path);
                }
                if (method.equals("post") && operation.has("requestBody")) {
                    assertThat(operation.at("/requestBody/content/application~1json/schema").isMissingNode())
                            .as("the body of %s %s", method, path).isFalse();
                }
            }
        }
        assertThat(lacking).as("operations without a summary, a success or a problem answer").isEmpty();
    }

    @Test
    void theDocumentNamesEveryProblemType() throws IOException {
        JsonNode types = document().at("/components/schemas/Problem/properties/type/enum");
        Set<String> named = new TreeSet<>();
        types.forEach(type -> named.add(type.asString()));

        for (Problem problem : Problem.values()) {
            assertThat(named).contains(problem.type().toString());
            assertThat(document().at("/components/examples/" + problem.typeName()).isMissingNode())
                    .as("an example of %s", problem.typeName()).isFalse();
        }
    }

    @Test
    void theServerServesTheDocumentOfItsJar() throws IOException {
        JsonNode served = new HttpApi(port).get("/api/v1/openapi.json").expect(200);

        assertThat(served).isEqualTo(document());
        assertThat(served.path("openapi").asString()).isEqualTo("3.1.0");
    }

    /** {@code METHOD /path} of every handler method of the API's controllers. */
    private Set<String> handlerOperations() {
        Set<String> operations = new TreeSet<>();
        for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : mappings.getHandlerMethods().entrySet()) {
            if (!entry.getValue().getBeanType().getPackageName().startsWith("dev.rmq.server.api")) {
                continue;
            }
            RequestMappingInfo info = entry.getKey();
            assertThat(info.getMethodsCondition().getMethods()).as("the HTTP method of %s", entry.getValue())
                    .hasSize(1);
            for (String pattern : info.getPatternValues()) {
                info.getMethodsCondition().getMethods().forEach(method -> operations.add(method.name() + " " + pattern));
            }
        }
        return operations;
    }

    private static JsonNode document() throws IOException {
        return HttpApi.JSON.readTree(new ClassPathResource("openapi.json").getContentAsByteArray());
    }
}
