package dev.rmq.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The schedules the server's configuration declares: their state, pause, resume, trigger and remove. */
@ServerTest
class ScheduleApiTests {

    @Value("${local.server.port}")
    int port;

    HttpApi api;

    @BeforeEach
    void client() {
        api = new HttpApi(port);
    }

    @Test
    void listsPausesResumesTriggersAndRemovesAConfiguredSchedule() {
        JsonNode listed = api.get("/api/v1/schedules").expect(200).path("schedules");
        List<String> names = new ArrayList<>();
        listed.forEach(schedule -> names.add(schedule.path("name").asString()));
        assertThat(names).contains("t-hourly");

        JsonNode hourly = api.get("/api/v1/schedules/t-hourly").expect(200);
        assertThat(hourly.path("topic").asString()).isEqualTo("t-ticks");
        assertThat(hourly.path("rule").asString()).isEqualTo("cron 0 0 * * * * Europe/Berlin");
        assertThat(hourly.path("misfire").asString()).isEqualTo("FIRE_ONCE");
        assertThat(hourly.path("paused").asBoolean()).isFalse();
        Instant next = Instant.parse(hourly.path("nextTick").asString());
        assertThat(next).isAfter(Instant.now()).isEqualTo(next.truncatedTo(ChronoUnit.HOURS));

        JsonNode paused = api.post("/api/v1/schedules/t-hourly/pause").expect(200);
        assertThat(paused.path("paused").asBoolean()).isTrue();
        assertThat(paused.path("nextTick").isNull() || paused.path("nextTick").isMissingNode()).isTrue();
        assertThat(api.post("/api/v1/schedules/t-hourly/resume").expect(200).path("paused").asBoolean()).isFalse();

        api.post("/api/v1/schedules/t-hourly/trigger").expect(200);
        JsonNode peek = api.get("/api/v1/topics/t-ticks/peek?count=10").expect(200);
        List<String> keys = new ArrayList<>();
        peek.path("messages").forEach(message -> keys.add(message.path("key").asString()));
        assertThat(keys).anyMatch(key -> key.startsWith("t-hourly@manual-"));

        assertThat(api.delete("/api/v1/schedules/t-hourly").status()).isEqualTo(204);
        api.get("/api/v1/schedules/t-hourly").problem("unknown-schedule", 404);
        api.post("/api/v1/schedules/t-hourly/pause").problem("unknown-schedule", 404);
    }

    @Test
    void anUnknownScheduleIsA404ThatListsTheDeclaredOnes() {
        JsonNode problem = api.get("/api/v1/schedules/nowhere").problem("unknown-schedule", 404);
        assertThat(problem.path("schedule").asString()).isEqualTo("nowhere");
        assertThat(problem.path("detail").asString()).contains("not declared in this application");
    }
}
