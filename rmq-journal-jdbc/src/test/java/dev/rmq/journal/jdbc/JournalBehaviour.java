package dev.rmq.journal.jdbc;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.dead.DeadReason;
import dev.rmq.events.RmqEvent;
import dev.rmq.journal.MessageHistory;
import dev.rmq.journal.MessageJournal;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.TickRule;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What the journal records, run against each database by a subclass. */
abstract class JournalBehaviour extends JournalTestBase {

    @Test
    void aSynchronousSendIsJournaledBeforeItReturnsAndEveryTransitionFollows() throws SQLException {
        open(journal -> journal.mode(JournalMode.SYNC));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"order\":1}", 100).withKey("k1")
                .withHeader("tenant", "acme").withTtl(Duration.ofHours(1)));
        // no flush: a synchronous send returned, so its row has committed
        MessageRow sent = message(PRIORITY, "k1");
        assertThat(sent.state()).isEqualTo("sent");
        assertThat(sent.score()).isEqualTo(100);

        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        PulledMessage<String> first = pollOne(puller);
        first.retry("try again");
        PulledMessage<String> second = pollOne(puller);
        assertThat(second.attempt()).isEqualTo(2);
        second.dead("give up");
        journal.flush(Duration.ofSeconds(10));

        MessageRow done = message(PRIORITY, "k1");
        assertThat(done.state()).isEqualTo("dead");
        assertThat(done.finished()).isTrue();
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(transitions(done.id())).containsExactly("sent", "delivered", "retried", "delivered", "dead");
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE host = 'test-host' AND worker IS NOT NULL"
                + " AND state = 'delivered'")).isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE worker = 'producer' AND state = 'sent'"))
                .as("a send's transition names the producer as its worker, as the journal page says").isEqualTo(1);
    }

    @Test
    void aMergeKeepsOneMessageWithTheLatestContent() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.rangeMerge(RANGE, "v1", Duration.ofMinutes(5)).withKey("m"));
        client.producer().send(OutgoingMessage.rangeMerge(RANGE, "v2", Duration.ofMinutes(5)).withKey("m"));
        journal.flush(Duration.ofSeconds(10));
        List<MessageRow> rows = messages(RANGE);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).state()).isEqualTo("merged");
        assertThat(transitions(rows.get(0).id())).containsExactly("sent", "merged");
        assertThat(payloadOf(rows.get(0).id())).isEqualTo("v2");
    }

    @Test
    void cancelsAndReschedulesAreJournaled() throws SQLException {
        open(journal -> { });
        Instant due = Instant.now().plus(Duration.ofHours(1));
        client.producer().send(OutgoingMessage.fixedTime(FIXED, "a", due).withKey("a"));
        client.producer().send(OutgoingMessage.fixedTime(FIXED, "b", due).withKey("b"));
        Instant later = due.plus(Duration.ofHours(1));
        assertThat(client.producer().reschedule(MessageRef.of(FIXED, "a"), later)).isTrue();
        assertThat(client.producer().cancel(MessageRef.of(FIXED, "b"))).isTrue();
        journal.flush(Duration.ofSeconds(10));
        MessageRow a = message(FIXED, "a");
        assertThat(a.state()).isEqualTo("rescheduled");
        assertThat(a.score()).isEqualTo(later.toEpochMilli());
        assertThat(a.finished()).isFalse();
        MessageRow b = message(FIXED, "b");
        assertThat(b.state()).isEqualTo("cancelled");
        assertThat(b.finished()).isTrue();
    }

    @Test
    void aPriorityMessagesNewNotBeforeTimeIsJournaledAndRestored() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "p", 70).withKey("nb"));
        long later = Instant.now().plus(Duration.ofHours(1)).toEpochMilli();
        assertThat(client.producer().reschedule(MessageRef.of(PRIORITY, "nb"), Instant.ofEpochMilli(later))).isTrue();
        journal.flush(Duration.ofSeconds(10));
        MessageRow row = message(PRIORITY, "nb");
        assertThat(row.state()).isEqualTo("rescheduled");
        assertThat(row.score()).as("the priority is kept").isEqualTo(70);
        assertThat(count("SELECT COUNT(*) FROM rmq_messages WHERE msg_key = 'nb' AND not_before = " + later)).isEqualTo(1);

        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isEqualTo(1);
        StoredMessage restored = client.producer().get(MessageRef.of(PRIORITY, "nb")).orElseThrow();
        assertThat(restored.state()).isEqualTo(MessageState.DELAYED);
        assertThat(restored.visibleAt()).hasValue(Instant.ofEpochMilli(later));

        assertThat(client.producer().reschedule(MessageRef.of(PRIORITY, "nb"), Instant.now())).isTrue();
        journal.flush(Duration.ofSeconds(10));
        assertThat(count("SELECT COUNT(*) FROM rmq_messages WHERE msg_key = 'nb' AND not_before IS NULL")).isEqualTo(1);
    }

    @Test
    void aMessageWaitingOutItsBackoffIsRestoredStillWaitingItOut() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(SLOW_PRIORITY, "p", 70).withKey("backoff-p"));
        client.producer().send(OutgoingMessage.fixedTime(SLOW_FIXED, "f", Instant.now()).withKey("backoff-f"));
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(SLOW_PRIORITY, SLOW_FIXED).build());
        puller.start();
        Instant failed = Instant.now();
        for (int i = 0; i < 2; i++) {
            assertThat(pollOne(puller).retry("not yet")).isEqualTo(AckOutcome.RETRY);
        }
        journal.flush(Duration.ofSeconds(10));

        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isEqualTo(2);

        Instant backoffOver = failed.plus(Duration.ofMinutes(59));
        assertThat(client.producer().get(MessageRef.of(SLOW_PRIORITY, "backoff-p")).orElseThrow().visibleAt())
                .hasValueSatisfying(at -> assertThat(at).isAfter(backoffOver));
        assertThat(client.producer().get(MessageRef.of(SLOW_FIXED, "backoff-f")).orElseThrow()
                .dueTime(TopicType.FIXED_TIME)).hasValueSatisfying(at -> assertThat(at).isAfter(backoffOver));
        assertThat(puller.poll(10, Duration.ofMillis(500))).as("neither is due before its backoff is over").isEmpty();
    }

    @Test
    void aMessageRequeuedFromTheDeadQueueIsJournaledAsWaitingAgainAndItsDeliveryFinishesIt() throws SQLException {
        open(journal -> { });
        for (String key : List.of("one", "all-1", "all-2")) {
            client.producer().send(OutgoingMessage.priority(PRIORITY, "payload of " + key, 40).withKey(key)
                    .withHeader("tenant", "acme"));
        }
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        for (int i = 0; i < 3; i++) {
            pollOne(puller).dead("bad data, fixed since");
        }
        int slot = client.topics().require(PRIORITY).slotOf("one");
        assertThat(client.deadQueue().requeue(PRIORITY, slot, "one")).isTrue();
        assertThat(client.deadQueue().requeueAll(PRIORITY)).isEqualTo(2);
        journal.flush(Duration.ofSeconds(10));
        assertThat(messages(PRIORITY)).as("each key's dead message, and the same message waiting again")
                .hasSize(6).filteredOn(row -> !row.finished()).hasSize(3)
                .allSatisfy(row -> assertThat(row.state()).isEqualTo("sent"));
        assertThat(count("SELECT COUNT(DISTINCT send_id) FROM rmq_messages WHERE msg_key = 'one'"))
                .as("the requeued message waits under a send id of its own, which its deliveries name").isEqualTo(2);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "one")).orElseThrow().headers())
                .containsEntry(MessageJournal.SEND_ID_HEADER, sendIdOf("one"));

        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isEqualTo(3);
        StoredMessage restored = client.producer().get(MessageRef.of(PRIORITY, "one")).orElseThrow();
        assertThat(restored.priority(TopicType.PRIORITY)).hasValue(40L);
        assertThat(restored.headers()).containsEntry("tenant", "acme");

        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            PulledMessage<String> again = pollOne(puller);
            assertThat(again.attempt()).as("from attempt 1 again").isEqualTo(1);
            payloads.add(again.payload());
            assertThat(again.ack()).isEqualTo(AckOutcome.COMMITTED);
        }
        assertThat(payloads).containsExactlyInAnyOrder("payload of one", "payload of all-1", "payload of all-2");
        journal.flush(Duration.ofSeconds(10));
        assertThat(messages(PRIORITY)).as("the requeued messages' deliveries finish them").allSatisfy(row ->
                assertThat(row.finished()).isTrue());
        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isZero();
    }

    @Test
    void aClearIsJournaledSoThatARestoreDoesNotBringTheMessagesBack() throws SQLException {
        open(journal -> { });
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            batch.add(OutgoingMessage.priority(PRIORITY, "p" + i, 50).withKey("cleared-" + i));
        }
        client.producer().sendAll(batch);

        assertThat(client.admin().clear(PRIORITY).waiting()).isEqualTo(40);
        journal.flush(Duration.ofSeconds(10));
        assertThat(messages(PRIORITY)).hasSize(40).allSatisfy(row -> {
            assertThat(row.state()).isEqualTo("cancelled");
            assertThat(row.finished()).isTrue();
        });
        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isZero();
    }

    @Test
    void anAtMostOnceDeliveryFinishesTheMessage() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(ONCE, "x", 50).withKey("once"));
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(ONCE).build());
        puller.start();
        pollOne(puller);
        journal.flush(Duration.ofSeconds(10));
        MessageRow row = message(ONCE, "once");
        assertThat(row.state()).isEqualTo("delivered");
        assertThat(row.finished()).isTrue();
        redis.command("FLUSHALL");
        assertThat(journal.restore(client, RestoreRequest.all()).restored()).isZero();
    }

    @Test
    void aKeysHistoryReadsBackEachOfItsMessagesWithEveryTransitionTheLatestFirst() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"order\":4711}", 100).withKey("4711")
                .withHeader("tenant", "acme"));
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        pollOne(puller).retry("card declined");
        assertThat(pollOne(puller).ack()).isEqualTo(AckOutcome.COMMITTED);
        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"order\":4711,\"again\":true}", 90)
                .withKey("4711"));
        journal.flush(Duration.ofSeconds(10));

        List<MessageHistory> history = client.inspector().history(PRIORITY, "4711");
        assertThat(history).hasSize(2);
        MessageHistory waiting = history.get(0);
        assertThat(waiting.state()).isEqualTo("sent");
        assertThat(waiting.finished()).isFalse();
        assertThat(waiting.score()).isEqualTo(90);
        assertThat(waiting.transitions()).extracting(MessageHistory.Transition::state).containsExactly("sent");

        MessageHistory handled = history.get(1);
        assertThat(handled.state()).isEqualTo("acked");
        assertThat(handled.finished()).isTrue();
        assertThat(handled.attempts()).isEqualTo(2);
        assertThat(handled.type()).isEqualTo(TopicType.PRIORITY);
        assertThat(handled.headers()).containsEntry("tenant", "acme");
        assertThat(new String(handled.payload(), StandardCharsets.UTF_8)).contains("4711");
        assertThat(handled.transitions()).extracting(MessageHistory.Transition::state)
                .containsExactly("sent", "delivered", "retried", "delivered", "acked");
        assertThat(handled.transitions()).extracting(MessageHistory.Transition::attempt).containsExactly(0, 1, 1, 2, 2);
        assertThat(handled.transitions().get(2).detail()).contains("card declined");
        assertThat(handled.transitions().get(1).worker()).as("the delivery names its consumer").isNotBlank();
        assertThat(handled.transitions().get(1).host()).isEqualTo("test-host");
        assertThat(handled.sentAt()).isBeforeOrEqualTo(handled.updatedAt())
                .as("stored in UTC, read in UTC, whatever the JVM's zone").isBetween(
                        Instant.now().minus(Duration.ofMinutes(1)), Instant.now());

        assertThat(client.inspector().history(PRIORITY, "no-such-key")).isEmpty();
        // retention removes the finished message with its transitions, and keeps the one that waits
        journal.prune(Instant.now().plusSeconds(1));
        assertThat(client.inspector().history(PRIORITY, "4711")).extracting(MessageHistory::state)
                .containsExactly("sent");
    }

    @Test
    void everySendCarriesAnIdThatItsMessageRowAndItsDeliveriesShareAndAMergeReplaces() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"v\":1}", 100).withKey("named")
                .withHeader(MessageJournal.SEND_ID_HEADER, "chosen-by-the-caller"));
        journal.flush(Duration.ofSeconds(10));
        String first = sendIdOf("named");
        assertThat(first).as("the client's own, not the caller's").isNotBlank().isNotEqualTo("chosen-by-the-caller");

        client.producer().send(OutgoingMessage.priority(PRIORITY, "{\"v\":2}", 100).withKey("named"));
        journal.flush(Duration.ofSeconds(10));
        String merging = sendIdOf("named");
        assertThat(merging).isNotBlank().isNotEqualTo(first);
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        PulledMessage<String> got = pollOne(puller);
        String delivered = got.headers().get(MessageJournal.SEND_ID_HEADER);
        assertThat(delivered).as("the merging send's, as its payload is").isEqualTo(merging);
        assertThat(got.ack()).isEqualTo(AckOutcome.COMMITTED);
        journal.flush(Duration.ofSeconds(10));

        MessageHistory done = client.inspector().history(PRIORITY, "named").get(0);
        assertThat(done.headers()).containsEntry(MessageJournal.SEND_ID_HEADER, delivered);
        assertThat(done.transitions()).extracting(MessageHistory.Transition::state)
                .containsExactly("sent", "merged", "delivered", "acked");
    }

    private String sendIdOf(String key) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT send_id FROM rmq_messages WHERE topic = ? AND msg_key = ? ORDER BY id DESC")) {
            select.setString(1, PRIORITY);
            select.setString(2, key);
            try (ResultSet result = select.executeQuery()) {
                assertThat(result.next()).as("a row of " + key).isTrue();
                return result.getString(1);
            }
        }
    }

    @Test
    void aSchedulesTicksAreJournaledAsSendsAreSoThatTheirHistoryIsWhole() throws SQLException {
        open(journal -> { });
        client.admin().schedules().upsert(RecurringSchedule.builder("beat", FIXED, TickRule.every(Duration.ofSeconds(1)))
                .payload("tick").build());
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(FIXED).build());
        puller.start();
        PulledMessage<String> tick = pollOne(puller);
        assertThat(tick.ack()).isEqualTo(AckOutcome.COMMITTED);
        client.admin().schedules().remove("beat");
        journal.flush(Duration.ofSeconds(10));

        List<MessageHistory> history = client.inspector().history(FIXED, tick.key());
        assertThat(history).singleElement().satisfies(message -> {
            assertThat(message.headers()).containsEntry(RecurringSchedule.SCHEDULE_HEADER, "beat");
            assertThat(message.transitions()).extracting(MessageHistory.Transition::state)
                    .containsExactly("sent", "delivered", "acked");
        });
    }

    @Test
    void retentionPrunesFinishedMessagesWithTheirTransitionsAndKeepsOpenOnes() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "done", 100).withKey("done"));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "open", 20).withKey("open"));
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        PulledMessage<String> done = pollOne(puller);
        done.ack();
        String open = done.key().equals("done") ? "open" : "done";
        journal.flush(Duration.ofSeconds(10));
        long doneId = message(PRIORITY, done.key()).id();

        assertThat(journal.prune(Instant.now().plusSeconds(60))).isEqualTo(1);
        assertThat(messages(PRIORITY)).extracting(MessageRow::key).containsExactly(open);
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE message_id = " + doneId)).isZero();
        assertThat(journal.stats().pruned()).isEqualTo(1);
    }

    /**
     * A message whose time to live runs out while it waits leaves Redis unseen, so no change finishes its row: retention
     * removes it once it expired longer ago than the retention, and keeps the open messages that may still come.
     */
    @Test
    void retentionPrunesOpenMessagesWhoseTimeToLiveRanOutAndKeepsTheOthers() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "gone", 300).withKey("gone")
                .withTtl(Duration.ofMillis(50)));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "later", 100).withKey("later")
                .withTtl(Duration.ofHours(2)));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "open", 200).withKey("open"));
        journal.flush(Duration.ofSeconds(10));
        long goneId = message(PRIORITY, "gone").id();
        long sentAt = redisTimeMs();
        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() > sentAt + 100);
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        // the poll drops the expired message and takes the next: the expired one's row stays open
        assertThat(pollOne(puller).key()).isEqualTo("open");
        journal.flush(Duration.ofSeconds(10));
        assertThat(message(PRIORITY, "gone").finished()).isFalse();

        assertThat(journal.prune(Instant.now().plus(Duration.ofHours(1)))).isEqualTo(1);

        assertThat(messages(PRIORITY)).extracting(MessageRow::key).containsExactlyInAnyOrder("later", "open");
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE message_id = " + goneId)).isZero();
        assertThat(journal.stats().pruned()).isEqualTo(1);
    }

    @Test
    void restorePutsBackEveryUnfinishedMessageOnceAfterFlushAll() throws SQLException {
        open(journal -> { });
        Expected expected = sendMixAndConsumePart();
        journal.flush(Duration.ofSeconds(10));
        redis.command("FLUSHALL");
        // a dry run says what would come back, and writes nothing anywhere
        RestoreReport dry = journal.restore(client, RestoreRequest.all().asDryRun());
        assertThat(dry.restored()).isEqualTo(expected.open().size());
        assertThat(dry.present()).isZero();
        for (String ref : expected.open().keySet()) {
            String[] parts = ref.split("/");
            assertThat(client.producer().get(MessageRef.of(parts[0], parts[1]))).as(ref + " after a dry run").isEmpty();
        }
        assertThat(count("SELECT COUNT(*) FROM rmq_transitions WHERE state = 'restored'")).isZero();
        assertRestoredExactlyOnce(expected);
    }

    @Test
    void restorePutsBackWhatARestartWithoutPersistenceLost() throws SQLException {
        open(journal -> { });
        Expected expected = sendMixAndConsumePart();
        journal.flush(Duration.ofSeconds(10));
        redis.kill();
        redis.restart();
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> client.producer().get(MessageRef.of(FIXED, "nothing")).isEmpty());
        assertRestoredExactlyOnce(expected);
    }

    @Test
    void expiredMessagesComeBackOnlyWhenAskedAndWithoutTheirTimeToLive() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "short", 100).withKey("short")
                .withTtl(Duration.ofMillis(200)));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "short2", 100).withKey("short2")
                .withTtl(Duration.ofMillis(200)));
        Instant expiry = Instant.now().plusMillis(200);
        journal.flush(Duration.ofSeconds(10));
        redis.command("FLUSHALL");
        // the time to live is what the test is about: it must have run out before the restore
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(expiry));

        RestoreReport one = journal.restore(client, new RestoreRequest(PRIORITY, "short", true));
        assertThat(one.restored()).isEqualTo(1);
        StoredMessage back = client.producer().get(MessageRef.of(PRIORITY, "short")).orElseThrow();
        assertThat(back.expiresAt()).isEmpty();

        RestoreReport rest = journal.restore(client, RestoreRequest.all());
        assertThat(rest.restored()).isZero();
        assertThat(rest.expired()).isEqualTo(1);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "short2"))).isEmpty();
        MessageRow expired = message(PRIORITY, "short2");
        assertThat(expired.state()).isEqualTo("expired");
        assertThat(expired.finished()).isTrue();
    }

    @Test
    void aRestoredMessageWhoseTimeToLiveRanOutGoesDeadWhenItsTopicSaysSo() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(EXPIRING, "short", 100).withKey("short")
                .withTtl(Duration.ofMillis(200)));
        journal.flush(Duration.ofSeconds(10));
        redis.command("FLUSHALL");
        // the time to live is what the test is about: it must have run out before the restore
        Instant expiry = Instant.now().plusMillis(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(expiry));

        RestoreReport report = journal.restore(client, RestoreRequest.all());

        assertThat(report.restored()).isZero();
        assertThat(report.expired()).isEqualTo(1);
        assertThat(client.deadQueue().list(EXPIRING, 0, 0, 10)).singleElement().satisfies(dead -> {
            assertThat(dead.key()).isEqualTo("short");
            assertThat(dead.reason()).isEqualTo(DeadReason.EXPIRED);
        });
        MessageRow row = message(EXPIRING, "short");
        assertThat(row.state()).isEqualTo("expired");
        assertThat(row.finished()).isTrue();
        // a second restore finds it dead, and writes nothing
        assertThat(journal.restore(client, RestoreRequest.all()).expired()).isZero();
        assertThat(client.deadQueue().count(EXPIRING)).isEqualTo(1);
    }

    @Test
    void oneMessageIsRestoredByKey() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "a", 100).withKey("a"));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "b", 100).withKey("b"));
        journal.flush(Duration.ofSeconds(10));
        redis.command("FLUSHALL");
        RestoreReport report = journal.restore(client, new RestoreRequest(PRIORITY, "b", false));
        assertThat(report.examined()).isEqualTo(1);
        assertThat(report.restored()).isEqualTo(1);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "a"))).isEmpty();
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "b"))).isPresent();
        assertThat(message(PRIORITY, "b").state()).isEqualTo("restored");
    }

    @Test
    void aKeyInFlightWithANewerSendBehindItComesBackAsTheNewerOneOnly() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.priority(PRIORITY, "first", 100).withKey("k"));
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY).build());
        puller.start();
        PulledMessage<String> inFlight = pollOne(puller);
        client.producer().send(OutgoingMessage.priority(PRIORITY, "second", 100).withKey("k"));
        journal.flush(Duration.ofSeconds(10));
        assertThat(messages(PRIORITY)).hasSize(2);

        redis.command("FLUSHALL");
        RestoreReport report = journal.restore(client, RestoreRequest.all());
        assertThat(report.examined()).isEqualTo(1);
        assertThat(report.restored()).isEqualTo(1);
        assertThat(client.producer().get(MessageRef.of(PRIORITY, "k")).orElseThrow().payloadText()).isEqualTo("second");
        List<MessageRow> rows = messages(PRIORITY);
        assertThat(rows.get(0).state()).isEqualTo("merged");
        assertThat(rows.get(0).finished()).isTrue();
        assertThat(rows.get(1).state()).isEqualTo("restored");
        assertThat(rows.get(1).finished()).isFalse();

        // the acknowledgement of the delivery Redis lost is refused, and leaves the restored message alone
        assertThatThrownBy(inFlight::ack).isInstanceOf(LeaseExpiredException.class);
        PulledMessage<String> again = pollOne(puller);
        assertThat(again.payload()).isEqualTo("second");
        again.ack();
        journal.flush(Duration.ofSeconds(10));
        assertThat(message(PRIORITY, "k").state()).isEqualTo("acked");
        assertThat(journal.restore(client, RestoreRequest.all()).examined()).isZero();
    }

    @Test
    void aConsumersChangeThatArrivesBeforeItsSendsRowWaitsForIt() throws SQLException {
        open(journal -> { });
        // another process's journal: it hears of the delivery and the commit before this one writes the send
        JdbcJournal consumerSide = closeAfter(JdbcJournal.builder(dataSource).host("consumer-host").build());
        Instant now = Instant.now();
        consumerSide.onEvent(new RmqEvent.Delivered(now, PRIORITY, 0, "c-1", "early", 1, false));
        consumerSide.onEvent(new RmqEvent.Acknowledged(now, PRIORITY, 0, "c-1", "early", AckOutcome.COMMITTED, ""));
        consumerSide.flush(Duration.ofSeconds(10));
        assertThat(consumerSide.stats().waiting()).isEqualTo(2);

        client.producer().send(OutgoingMessage.priority(PRIORITY, "early", 100).withKey("early"));
        journal.flush(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> consumerSide.stats().waiting() == 0);
        MessageRow row = message(PRIORITY, "early");
        assertThat(row.state()).isEqualTo("acked");
        assertThat(row.finished()).isTrue();
        assertThat(transitions(row.id())).containsExactly("sent", "delivered", "acked");
        assertThat(consumerSide.stats().unmatched()).isZero();
    }

    @Test
    void aMergeWrittenAfterItsMessageWasFinishedGoesToThatMessage() throws SQLException {
        open(journal -> { });
        JdbcJournal consumerSide = closeAfter(JdbcJournal.builder(dataSource).build());
        client.producer().send(OutgoingMessage.priority(PRIORITY, "first", 100).withKey("m"));
        journal.flush(Duration.ofSeconds(10));
        // the consumer's rows say the message ended before the producer's row of a merge into it is written
        Instant now = Instant.now();
        consumerSide.onEvent(new RmqEvent.Delivered(now, PRIORITY, 0, "c-1", "m", 1, false));
        consumerSide.onEvent(new RmqEvent.Acknowledged(now, PRIORITY, 0, "c-1", "m", AckOutcome.COMMITTED, ""));
        consumerSide.flush(Duration.ofSeconds(10));
        client.producer().send(OutgoingMessage.priority(PRIORITY, "second", 100).withKey("m"));
        journal.flush(Duration.ofSeconds(10));

        List<MessageRow> rows = messages(PRIORITY);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).finished()).isTrue();
        assertThat(transitions(rows.get(0).id())).containsExactly("sent", "delivered", "acked", "merged");
        assertThat(count("SELECT COUNT(*) FROM rmq_messages WHERE finished = FALSE")).isZero();
    }

    @Test
    void aNewSendOfAKeyRedisLostReplacesTheWaitingMessageTheJournalHeld() throws SQLException {
        open(journal -> { });
        client.producer().send(OutgoingMessage.fixedTime(FIXED, "old", Instant.now().plusSeconds(3600)).withKey("k"));
        redis.command("FLUSHALL");
        client.producer().send(OutgoingMessage.fixedTime(FIXED, "new", Instant.now().plusSeconds(3600)).withKey("k"));
        journal.flush(Duration.ofSeconds(10));
        List<MessageRow> rows = messages(FIXED);
        assertThat(rows).extracting(MessageRow::state, MessageRow::finished).containsExactly(
                org.assertj.core.groups.Tuple.tuple("merged", true), org.assertj.core.groups.Tuple.tuple("sent", false));
        RestoreReport report = journal.restore(client, RestoreRequest.all());
        assertThat(report.examined()).isEqualTo(1);
        assertThat(report.present()).isEqualTo(1);
    }

    // ---- the mix that loss and restore run on --------------------------------------------------------------

    /** What a restore must bring back: each key with its score and attempts; and what it must not. */
    record Expected(Map<String, long[]> open, List<String> finished, Map<String, String> lastErrors) {
    }

    /**
     * Sends 12 messages of each type, then consumes part: of the priority topic 3 acked, 1 dead, 1 retried (attempt
     * 1 counted), 1 left in flight; of the range-merge topic 4 acked. Fixed-time messages lie an hour ahead.
     */
    private Expected sendMixAndConsumePart() {
        Map<String, long[]> open = new HashMap<>();
        List<String> finished = new ArrayList<>();
        List<OutgoingMessage> sends = new ArrayList<>();
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        for (int i = 0; i < 12; i++) {
            sends.add(OutgoingMessage.priority(PRIORITY, "p" + i, 100 + i).withKey("p" + i));
            sends.add(OutgoingMessage.rangeMerge(RANGE, "r" + i, Duration.ofMillis(1)).withKey("r" + i));
            sends.add(OutgoingMessage.fixedTime(FIXED, "f" + i, due.plusSeconds(i)).withKey("f" + i));
            open.put(FIXED + "/f" + i, new long[] {due.plusSeconds(i).toEpochMilli(), 0});
            open.put(PRIORITY + "/p" + i, new long[] {100 + i, 0});
            open.put(RANGE + "/r" + i, new long[] {-1, 0});
        }
        client.producer().sendAll(sends);
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY, RANGE).build());
        puller.start();
        // priorities come highest first: p11 .. p6
        List<PulledMessage<String>> priority = new ArrayList<>();
        while (priority.size() < 6) {
            priority.addAll(puller.poll(6 - priority.size(), Duration.ofSeconds(5), PRIORITY));
        }
        for (int i = 0; i < 3; i++) {
            priority.get(i).ack();
            finished.add(PRIORITY + "/" + priority.get(i).key());
            open.remove(PRIORITY + "/" + priority.get(i).key());
        }
        priority.get(3).dead("bad");
        finished.add(PRIORITY + "/" + priority.get(3).key());
        open.remove(PRIORITY + "/" + priority.get(3).key());
        priority.get(4).retry("later");
        open.get(PRIORITY + "/" + priority.get(4).key())[1] = 1;
        // left in flight when Redis loses it: its delivery counts as an attempt, as a lease that ran out would
        open.get(PRIORITY + "/" + priority.get(5).key())[1] = 1;
        List<PulledMessage<String>> range = new ArrayList<>();
        while (range.size() < 4) {
            range.addAll(puller.poll(4 - range.size(), Duration.ofSeconds(5), RANGE));
        }
        for (PulledMessage<String> message : range) {
            message.ack();
            finished.add(RANGE + "/" + message.key());
            open.remove(RANGE + "/" + message.key());
        }
        return new Expected(open, finished, Map.of(PRIORITY + "/" + priority.get(4).key(), "later",
                PRIORITY + "/" + priority.get(5).key(), ""));
    }

    private void assertRestoredExactlyOnce(Expected expected) throws SQLException {
        RestoreReport report = journal.restore(client, RestoreRequest.all());
        assertThat(report.restored()).isEqualTo(expected.open().size());
        assertThat(report.present()).isZero();
        for (Map.Entry<String, long[]> entry : expected.open().entrySet()) {
            String[] ref = entry.getKey().split("/");
            StoredMessage back = client.producer().get(MessageRef.of(ref[0], ref[1])).orElseThrow(
                    () -> new AssertionError(entry.getKey() + " was not restored"));
            assertThat(back.attempts()).as(entry.getKey() + " attempts").isEqualTo((int) entry.getValue()[1]);
            if (entry.getValue()[0] >= 0) {
                assertThat((long) back.score()).as(entry.getKey() + " score").isEqualTo(entry.getValue()[0]);
            }
            assertThat(back.payloadText()).isEqualTo(ref[1]);
            if (expected.lastErrors().containsKey(entry.getKey())) {
                assertThat(back.lastError()).as(entry.getKey() + " last error, kept through the restore")
                        .isEqualTo(expected.lastErrors().get(entry.getKey()));
            }
        }
        for (String gone : expected.finished()) {
            String[] ref = gone.split("/");
            assertThat(client.producer().get(MessageRef.of(ref[0], ref[1]))).as(gone).isEmpty();
        }
        RestoreReport again = journal.restore(client, RestoreRequest.all());
        assertThat(again.restored()).isZero();
        assertThat(again.present()).isEqualTo(expected.open().size());
        long restoredRows = count("SELECT COUNT(*) FROM rmq_transitions WHERE state = 'restored'");
        assertThat(restoredRows).isEqualTo(expected.open().size());

        // each open message is delivered exactly once more, the retried one as its second attempt
        RmqPuller<String> puller = closeAfter(client.puller(String.class).topics(PRIORITY, RANGE).id("after").build());
        puller.start();
        Map<String, Integer> seen = new HashMap<>();
        long due = expected.open().keySet().stream().filter(key -> !key.startsWith(FIXED)).count();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (PulledMessage<String> message : puller.poll(50, Duration.ofMillis(200))) {
                seen.merge(message.topic() + "/" + message.key(), 1, Integer::sum);
                assertThat(message.attempt()).isEqualTo((int) expected.open().get(message.topic() + "/"
                        + message.key())[1] + 1);
                message.ack();
            }
            return seen.size() == due;
        });
        assertThat(seen.values()).allMatch(times -> times == 1);
    }

    private String payloadOf(long id) throws SQLException {
        try (var connection = dataSource.getConnection();
             var select = connection.prepareStatement("SELECT payload FROM rmq_messages WHERE id = ?")) {
            select.setLong(1, id);
            try (var result = select.executeQuery()) {
                result.next();
                return new String(result.getBytes(1), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
    }
}
