package dev.rmq.spring.console;

import dev.rmq.producer.OutgoingMessage;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Without Spring Security, and without being told to act, the console shows and never acts. */
@SpringBootTest(classes = ConsoleTestBase.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"rmq.topics.jobs.type=PRIORITY", "rmq.dashboard.enabled=true", "rmq.dashboard.path=/ops/queues"})
@DirtiesContext
class RmqConsoleReadOnlyTests extends ConsoleTestBase {

    @Test
    void noControlIsShownAndEveryWriteIsRefused() {
        ConsoleHttp console = console("/ops/queues");
        client.producer().send(OutgoingMessage.priority("jobs", "x", 100).withKey("k"));
        for (String page : new String[] {"", "topics/jobs", "topics/jobs/dead", "lookup?topic=jobs&key=k"}) {
            HttpResponse<String> response = console.get(page);
            assertThat(response.statusCode()).as(page).isEqualTo(200);
            assertThat(response.body()).as(page).contains("read-only").doesNotContain("data-action");
        }
        HttpResponse<String> refused = console.act("{\"action\":\"pause\",\"topic\":\"jobs\"}");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("read-only", "rmq.dashboard.write-operations-enabled");
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();
    }
}
