package dev.rmq.journal.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.journal.JournaledSend;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a journal starts, stops and finds the Redis a restore writes to, on PostgreSQL. */
class JournalLifecycleTests extends JournalTestBase {

    @Test
    void aRestoreWritesToTheClientItIsGivenEvenOneThatJournalsNothing() {
        open(settings -> settings.mode(JournalMode.SYNC));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"order\":1}", 100).withKey("k1"));
        redis.command("FLUSHALL");

        // a tool of its own: a client without a journal, and the journal that reads the rows
        try (RmqClient tool = RmqClient.builder(redisson).topics(topics()).build()) {
            assertThat(journal.restore(tool, RestoreRequest.all()).restored()).isEqualTo(1);
            assertThat(tool.producer().get(MessageRef.of(PRIORITY, "k1"))).isPresent();
        }
    }

    @Test
    void aRestoreNeedsAClientAndARequestAndARunningJournal() {
        open(settings -> { });
        assertThatThrownBy(() -> journal.restore(null, RestoreRequest.all()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client must not be null");
        assertThatThrownBy(() -> journal.restore(client, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RestoreRequest.all()");

        journal.close();
        assertThatThrownBy(() -> journal.restore(client, RestoreRequest.all()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("the journal is closed");
    }

    @Test
    void aClosedJournalRefusesSynchronousSendsAndASecondCloseDoesNothing() {
        open(settings -> settings.mode(JournalMode.SYNC).closeTimeout(Duration.ofSeconds(2)));
        journal.close();
        journal.close();

        JournaledSend late = new JournaledSend(PRIORITY, TopicType.PRIORITY, 0, "late", false, false, false, 100, null, null,
                Map.of(), new byte[0], Instant.now());
        assertThatThrownBy(() -> journal.sent(List.of(late)).toCompletableFuture().join())
                .hasCauseInstanceOf(JournalUnavailableException.class);
    }
}
