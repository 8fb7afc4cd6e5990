package dev.rmq.journal.jdbc;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.events.RmqEvent;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * A key sent again while its message is in flight: the journal follows what Redis decided, whatever order the
 * producer's and the consumer's rows reach it in, so that a restore brings back the newer message once.
 */
class KeyInFlightJournalTests extends JournalTestBase {

    private static final String SHORT_LEASE = "journal-short-lease";

    @Test
    void aSendBehindADeliveryWhoseRowsComeLaterLeavesTheDeliveredMessageOpenForThem() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "first", 100).withKey("k"));
        // the consumer runs in another application, whose journal writes its rows later
        RmqClient consumer = closeAfter(RmqClient.builder(redisson).topics(topics()).build());
        RmqPuller<String> puller = closeAfter(consumer.puller(String.class).topics(PRIORITY).build());
        puller.start();
        PulledMessage<String> first = pollOne(puller);

        SendReceipt second = client.producer().send(OutgoingMessage.priority(PRIORITY, "second", 100).withKey("k"));
        assertThat(second.behindDelivery()).isTrue();
        journal.flush(Duration.ofSeconds(10));
        assertThat(messages(PRIORITY)).as("the first is in flight, though no row says so yet")
                .extracting(MessageRow::state, MessageRow::finished)
                .containsExactly(tuple("sent", false), tuple("sent", false));

        first.ack();
        Instant now = Instant.now();
        journal.onEvent(new RmqEvent.Delivered(now, PRIORITY, first.slot(), "c-1", "k", 1, false));
        journal.onEvent(new RmqEvent.Acknowledged(now, PRIORITY, first.slot(), "c-1", "k", AckOutcome.COMMITTED, ""));
        journal.flush(Duration.ofSeconds(10));
        List<MessageRow> rows = messages(PRIORITY);
        assertThat(rows).extracting(MessageRow::state, MessageRow::finished)
                .containsExactly(tuple("acked", true), tuple("sent", false));
        assertThat(transitions(rows.get(0).id())).containsExactly("sent", "delivered", "acked");

        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isEqualTo(1);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "k")).orElseThrow().payloadText())
                .isEqualTo("second");
    }

    @Test
    void aLeaseThatRunsOutWhileANewerSendWaitsEndsItsMessageAndTheNewerOneIsDeliveredOnItsOwnRow()
            throws SQLException {
        RmqClient rmq = shortLeaseClient(3);
        rmq.producer().send(OutgoingMessage.priority(SHORT_LEASE, "first", 100).withKey("k"));
        RmqPuller<String> puller = closeAfter(rmq.puller(String.class).topics(SHORT_LEASE).build());
        puller.start();
        PulledMessage<String> abandoned = pollOne(puller);
        assertThat(abandoned.payload()).isEqualTo("first");
        assertThat(rmq.producer().send(OutgoingMessage.priority(SHORT_LEASE, "second", 100).withKey("k"))
                .behindDelivery()).isTrue();

        // the first's lease runs out unacknowledged; the poll that recovers it finds the newer send waiting
        PulledMessage<String> next = pollOne(puller);
        assertThat(next.payload()).isEqualTo("second");
        assertThat(next.attempt()).isEqualTo(1);
        next.ack();
        journal.flush(Duration.ofSeconds(10));

        List<MessageRow> rows = messages(SHORT_LEASE);
        assertThat(rows).extracting(MessageRow::state, MessageRow::finished)
                .containsExactly(tuple("merged", true), tuple("acked", true));
        assertThat(transitions(rows.get(0).id())).containsExactly("sent", "delivered", "merged");
        assertThat(transitions(rows.get(1).id())).containsExactly("sent", "delivered", "acked");
        redis.command("FLUSHALL");
        assertThat(journal.restore(rmq, RestoreRequest.all()).examined()).as("nothing open to bring back").isZero();
    }

    @Test
    void aLeaseThatRunsOutIsJournaledAsARetryAndItsLastAsDead() throws SQLException {
        RmqClient rmq = shortLeaseClient(1);
        rmq.producer().send(OutgoingMessage.priority(SHORT_LEASE, "lost twice", 100).withKey("k"));
        RmqPuller<String> puller = closeAfter(rmq.puller(String.class).topics(SHORT_LEASE).build());
        puller.start();
        assertThat(pollOne(puller).attempt()).isEqualTo(1);
        assertThat(pollOne(puller).attempt()).as("recovered, then retried").isEqualTo(2);
        // the second lease runs out too: its recovery spends the last retry
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (rmq.deadQueue().count(SHORT_LEASE) == 0 && System.nanoTime() < deadline) {
            assertThat(puller.poll(1, Duration.ofMillis(200))).isEmpty();
        }
        journal.flush(Duration.ofSeconds(10));
        MessageRow row = message(SHORT_LEASE, "k");
        assertThat(row.state()).isEqualTo("dead");
        assertThat(row.finished()).isTrue();
        assertThat(transitions(row.id())).containsExactly("sent", "delivered", "retried", "delivered", "dead");
    }

    /** A journal, and a client of one priority topic whose leases run out after 300 ms, with few retries. */
    private RmqClient shortLeaseClient(int maxRetries) {
        open(journal -> { });
        TopicDefinition shortLease = TopicDefinition.builder(SHORT_LEASE, TopicType.PRIORITY).slotAmount(1)
                .leaseTimeout(Duration.ofMillis(300)).maxRetries(maxRetries)
                .backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).build();
        return closeAfter(RmqClient.builder(redisson).topics(List.of(shortLease)).journal(journal).build());
    }
}
