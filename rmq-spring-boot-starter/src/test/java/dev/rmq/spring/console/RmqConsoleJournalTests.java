package dev.rmq.spring.console;

import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.spring.ApplicationDatabase;
import dev.rmq.spring.RedisAndZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** With the JDBC journal: its health, a key's recorded history, and a restore with a dry run first. */
@ExtendWith(ApplicationDatabase.class)
@SpringBootTest(classes = RmqConsoleJournalTests.JournaledApp.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "rmq.topics.timers.type=FIXED_TIME",
                "rmq.journal.enabled=true",
                "rmq.dashboard.enabled=true",
                "rmq.dashboard.write-operations-enabled=true"})
@DirtiesContext
class RmqConsoleJournalTests extends ConsoleTestBase {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ApplicationDatabase.Beans.class)
    static class JournaledApp {
    }

    @Autowired
    JdbcJournal journal;

    @Test
    void theJournalPageShowsItsHealthAndARestoreIsDryRunFirst() {
        ConsoleHttp console = console("/rmq");
        assertThat(console.get("").body()).contains("href=\"journal\"");
        assertThat(console.get("journal").body()).contains("Lag", "Buffered", "data-action=\"restore-dry-run\"");

        Instant due = Instant.now().plus(Duration.ofHours(1));
        for (int i = 0; i < 3; i++) {
            client.producer().send(OutgoingMessage.fixedTime("timers", "t" + i, due).withKey("t-" + i));
        }
        journal.flush(Duration.ofSeconds(10));
        RedisAndZooKeeper.redis().command("FLUSHALL");
        String lost = console.get("lookup?topic=timers&key=t-1").body();
        assertThat(lost).contains("Redis holds no message of key", "In the journal", "producer");

        HttpResponse<String> dry = console.act("{\"action\":\"restore-dry-run\"}");
        assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
        assertThat(dry.body()).contains("would put back 3 of 3", "nothing was written");
        assertThat(client.producer().get(MessageRef.of("timers", "t-1"))).isEmpty();

        assertThat(console.act("{\"action\":\"restore\"}").body()).contains("put back 3 of 3");
        assertThat(client.producer().get(MessageRef.of("timers", "t-1"))).isPresent();
        assertThat(console.act("{\"action\":\"restore-dry-run\"}").body()).contains("would put back 0 of 3",
                "3 are still in Redis");
    }
}
