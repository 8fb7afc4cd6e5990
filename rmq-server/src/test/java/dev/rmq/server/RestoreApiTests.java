package dev.rmq.server;

import dev.rmq.testsupport.db.PostgresTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Restore over HTTP, with the journal in a PostgreSQL of the test's own: what Redis lost comes back once, and a
 * second restore changes nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.port=0",
        // read as the application starts, like a URL given on the command line (see DataSourceSwitch)
        "spring.datasource.url=${rmq.test.journal-url}",
        "rmq.topics.t-journal.type=PRIORITY",
        "rmq.topics.t-journal.slot-amount=2",
        "rmq.journal.mode=sync"})
@DirtiesContext
class RestoreApiTests {

    private static final PostgresTestServer postgres = PostgresTestServer.start();

    static {
        System.setProperty("rmq.test.journal-url", postgres.jdbcUrl());
    }

    @AfterAll
    static void stopDatabase() {
        System.clearProperty("rmq.test.journal-url");
        postgres.close();
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    RedissonClient redisson;

    @Test
    void whatRedisLostComesBackOnceAndOnlyWhatWasNotFinished() {
        HttpApi api = new HttpApi(port);
        api.awaitPullerHoldsAllSlots(java.util.Set.of("t-journal"));
        api.send("t-journal", Map.of("payload", Map.of("n", 1), "key", "done", "priority", 90));
        api.send("t-journal", Map.of("payload", Map.of("n", 2), "key", "open-1", "priority", 50));
        api.send("t-journal", Map.of("payload", Map.of("n", 3), "key", "open-2", "priority", 40));
        List<JsonNode> pulled = api.pull("t-journal", 1, "PT5S");
        assertThat(pulled.get(0).path("key").asString()).isEqualTo("done");
        api.ack(pulled.get(0));

        // what happened to "done": the journal says, with every transition, whoever handled it
        JsonNode history = await().atMost(Duration.ofSeconds(10)).until(
                () -> api.get("/api/v1/topics/t-journal/messages/done/history").expect(200),
                answer -> answer.path("messages").path(0).path("state").asString().equals("acked"));
        JsonNode done = history.path("messages").get(0);
        assertThat(history.path("messages").size()).isEqualTo(1);
        assertThat(done.path("priority").asLong()).isEqualTo(90);
        assertThat(done.path("finished").asBoolean()).isTrue();
        assertThat(done.path("payload").path("n").asInt()).isEqualTo(1);
        List<String> states = new ArrayList<>();
        done.path("transitions").forEach(transition -> states.add(transition.path("state").asString()));
        assertThat(states).containsExactly("sent", "delivered", "acked");
        assertThat(done.path("transitions").get(1).path("worker").asString()).isNotBlank();
        assertThat(api.get("/api/v1/topics/t-journal/messages/never/history").expect(200).path("messages").size())
                .isZero();

        redisson.getKeys().flushall();
        api.get("/api/v1/topics/t-journal/messages/open-1").problem("not-found", 404);

        JsonNode report = api.post("/api/v1/restore").expect(200);
        assertThat(report.path("restored").asLong()).isEqualTo(2);
        assertThat(api.get("/api/v1/topics/t-journal/messages/open-1").expect(200).path("payload").path("n").asInt())
                .isEqualTo(2);
        api.get("/api/v1/topics/t-journal/messages/done").problem("not-found", 404);

        JsonNode again = api.post("/api/v1/restore").expect(200);
        assertThat(again.path("restored").asLong()).isZero();
        assertThat(again.path("present").asLong()).isEqualTo(2);

        JsonNode byKey = api.post("/api/v1/restore?topic=t-journal&key=open-2").expect(200);
        assertThat(byKey.path("examined").asLong()).isEqualTo(1);
        api.post("/api/v1/restore?topic=nope").problem("unknown-topic", 404);
    }
}
