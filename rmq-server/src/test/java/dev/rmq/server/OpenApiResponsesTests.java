package dev.rmq.server;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.io.ClassPathResource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real answers of the running server against the OpenAPI document's schemas, as a generated client would read
 * them: every field a schema requires is there, and every field has the type the document gives. Each operation's
 * schema is read from the document, for the status and content type of the answer at hand.
 */
@ServerTest
class OpenApiResponsesTests {

    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @Value("${local.server.port}")
    int port;

    private final List<String> checked = new ArrayList<>();

    @Test
    void everyAnswerOfAWholeMessageLifeFitsItsSchemaInTheDocument() throws IOException {
        HttpApi api = new HttpApi(port);
        JsonNode document = document();
        String topic = "t-schema";

        check(document, "get", "/api/v1/topics", api.get("/api/v1/topics"));
        check(document, "get", "/api/v1/topics/{topic}", api.get("/api/v1/topics/" + topic));
        HttpApi.Reply sent = api.post("/api/v1/topics/" + topic + "/messages",
                HttpApi.json(Map.of("payload", Map.of("order", 7), "key", "s-1", "priority", 40,
                        "headers", Map.of("tenant", "acme"))));
        check(document, "post", "/api/v1/topics/{topic}/messages", sent);
        check(document, "post", "/api/v1/topics/{topic}/messages:batch", api.post("/api/v1/topics/" + topic
                + "/messages:batch", HttpApi.json(Map.of("messages", List.of(Map.of("payload", "two", "key", "s-2",
                "priority", 30), Map.of("payload", "three", "key", "s-3", "priority", 20))))));
        check(document, "get", "/api/v1/topics/{topic}/messages/{key}", api.get("/api/v1/topics/" + topic
                + "/messages/s-1"));
        check(document, "get", "/api/v1/topics/{topic}/counts", api.get("/api/v1/topics/" + topic + "/counts"));
        check(document, "get", "/api/v1/topics/{topic}/peek", api.get("/api/v1/topics/" + topic + "/peek"));
        check(document, "post", "/api/v1/topics/{topic}/messages/{key}/reschedule", api.post("/api/v1/topics/" + topic
                + "/messages/s-1/reschedule", HttpApi.json(Map.of("priority", 90))));
        check(document, "delete", "/api/v1/topics/{topic}/messages/{key}", api.delete("/api/v1/topics/" + topic
                + "/messages/s-3"));

        HttpApi.Reply pulled = api.post("/api/v1/pull", HttpApi.json(Map.of("topics", List.of(topic), "count", 1,
                "timeout", "PT5S")));
        check(document, "post", "/api/v1/pull", pulled);
        JsonNode delivery = pulled.expect(200).path("deliveries").get(0);
        String token = delivery.path("token").asString();
        check(document, "post", "/api/v1/deliveries/{token}/extend", api.post("/api/v1/deliveries/" + token
                + "/extend", HttpApi.json(Map.of("duration", "PT30S"))));
        check(document, "post", "/api/v1/deliveries/{token}/progress", api.post("/api/v1/deliveries/" + token
                + "/progress", HttpApi.json(Map.of("percent", 50, "note", "half way"))));
        // a message in flight, with its progress
        check(document, "get", "/api/v1/topics/{topic}/messages/{key}", api.get("/api/v1/topics/" + topic
                + "/messages/" + delivery.path("key").asString()));
        check(document, "post", "/api/v1/deliveries/{token}/dead", api.post("/api/v1/deliveries/" + token + "/dead",
                HttpApi.json(Map.of("reason", "poison"))));
        String dead = delivery.path("key").asString();
        // a dead message in a page, then one requeued: its slot basis is its key
        check(document, "get", "/api/v1/topics/{topic}/dead", api.get("/api/v1/topics/" + topic + "/dead"));
        check(document, "post", "/api/v1/topics/{topic}/dead/{key}/requeue", api.post("/api/v1/topics/" + topic
                + "/dead/" + dead + "/requeue"));

        List<String> tokens = new ArrayList<>();
        for (JsonNode again : api.pull(topic, 10, "PT5S")) {
            tokens.add(again.path("token").asString());
        }
        assertThat(tokens).isNotEmpty();
        check(document, "post", "/api/v1/deliveries:ack", api.post("/api/v1/deliveries:ack",
                HttpApi.json(Map.of("tokens", tokens))));
        check(document, "post", "/api/v1/topics/{topic}/pause", api.post("/api/v1/topics/" + topic + "/pause"));
        check(document, "post", "/api/v1/topics/{topic}/resume", api.post("/api/v1/topics/" + topic + "/resume"));
        check(document, "delete", "/api/v1/topics/{topic}/dead", api.delete("/api/v1/topics/" + topic + "/dead"));
        // and problems, in their own content type
        check(document, "get", "/api/v1/topics/{topic}", api.get("/api/v1/topics/no-such-topic"));
        check(document, "post", "/api/v1/deliveries/{token}/ack", api.post("/api/v1/deliveries/" + token + "/ack"));

        assertThat(checked).as("answers held against the document").hasSize(22);
    }

    @Test
    void everyObjectAnAnswerReturnsSaysWhichOfItsFieldsAreAlwaysThere() throws IOException {
        JsonNode document = document();
        List<String> withoutRequired = new ArrayList<>();
        for (String path : document.path("paths").propertyNames()) {
            for (String method : document.path("paths").path(path).propertyNames()) {
                JsonNode responses = document.path("paths").path(path).path(method).path("responses");
                for (String status : responses.propertyNames()) {
                    JsonNode schema = responses.path(status).at("/content/application~1json/schema");
                    JsonNode resolved = schema.has("$ref") ? document.at(schema.path("$ref").asString().substring(1))
                            : schema;
                    if ("object".equals(resolved.path("type").asString()) && resolved.has("properties")
                            && !resolved.has("required")) {
                        withoutRequired.add(method.toUpperCase(Locale.ROOT) + " " + path + " " + status);
                    }
                }
            }
        }
        assertThat(withoutRequired).as("answers whose schema marks no field as always present").isEmpty();
    }

    /** Holds one answer against the schema the document gives its operation, status and content type. */
    private void check(JsonNode document, String method, String path, HttpApi.Reply reply) {
        String status = Integer.toString(reply.status());
        String contentType = reply.contentType().split(";")[0].trim();
        JsonNode operation = document.path("paths").path(path).path(method);
        assertThat(operation.isMissingNode()).as("%s %s in the document", method, path).isFalse();
        JsonNode response = operation.path("responses").path(status);
        assertThat(response.isMissingNode()).as("%s %s documents status %s (the answer was %s)", method, path, status,
                reply.body()).isFalse();
        JsonNode schema = response.path("content").path(contentType).path("schema");
        assertThat(schema.isMissingNode()).as("%s %s %s documents %s", method, path, status, contentType).isFalse();

        // the schema, with the document's components beside it, so that its references resolve as in the document
        ObjectNode standalone = (ObjectNode) schema.deepCopy();
        standalone.set("components", document.path("components"));
        Schema validator = SCHEMAS.getSchema(SchemaLocation.of("https://rmq.dev/openapi-test/" + checked.size()),
                standalone);
        List<Error> errors = validator.validate(reply.json());
        assertThat(errors).as("%s %s %s: %s against the document", method, path, status, reply.body()).isEmpty();
        checked.add(method + " " + path + " " + status);
    }

    private static JsonNode document() throws IOException {
        return HttpApi.JSON.readTree(new ClassPathResource("openapi.json").getContentAsByteArray());
    }
}
