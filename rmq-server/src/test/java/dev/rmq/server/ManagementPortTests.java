package dev.rmq.server;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the actuator on a port of its own ({@code management.server.port}), it runs in a web server of its own: the
 * API keys guard it as they guard the API, and the health endpoint stays open there too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.port=0",
        "server.address=127.0.0.1",
        "management.server.port=0",
        "management.server.address=127.0.0.1",
        "rmq.server.api-keys[0].name=dashboard",
        "rmq.server.api-keys[0].key=" + ManagementPortTests.READ_ONLY,
        "rmq.server.api-keys[0].scope=read-only",
        "rmq.server.api-keys[1].name=operator",
        "rmq.server.api-keys[1].key=" + ManagementPortTests.READ_WRITE,
        "rmq.server.api-keys[1].scope=read-write"
})
class ManagementPortTests {

    static final String READ_ONLY = "ro-5e0d7c1b2a9f4d83b6e4";
    static final String READ_WRITE = "rw-1c8f3a6d0b2e4f97a5d1";

    @Value("${local.management.port}")
    int managementPort;

    @Test
    void theActuatorOnItsOwnPortAsksForAKey() {
        HttpApi anonymous = new HttpApi(managementPort);

        anonymous.get("/actuator/metrics").problem("unauthorized", 401);
        anonymous.get("/actuator/prometheus").problem("unauthorized", 401);
        anonymous.get("/actuator/rmq").problem("unauthorized", 401);
        anonymous.post("/actuator/rmq/merchant-tasks", "{\"action\":\"pause\"}").problem("unauthorized", 401);
        anonymous.withKey("not-a-key-of-this-server").get("/actuator/metrics").problem("unauthorized", 401);
    }

    @Test
    void aReadOnlyKeyReadsTheActuatorOnItsOwnPortButChangesNothing() {
        HttpApi reader = new HttpApi(managementPort, READ_ONLY);

        assertThat(reader.get("/actuator/metrics").expect(200).path("names").size()).isPositive();
        reader.post("/actuator/rmq/merchant-tasks", "{\"action\":\"pause\"}").problem("forbidden", 403);
        new HttpApi(managementPort, READ_WRITE).get("/actuator/rmq/merchant-tasks").expect(200);
    }

    @Test
    void healthOnItsOwnPortIsOpenWithoutAKey() {
        JsonNode health = new HttpApi(managementPort).get("/actuator/health").expect(200);

        assertThat(health.path("status").asString()).isEqualTo("UP");
    }
}
