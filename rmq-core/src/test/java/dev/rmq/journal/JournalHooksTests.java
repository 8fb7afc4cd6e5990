package dev.rmq.journal;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.dead.DeadReason;
import dev.rmq.events.RmqEvent;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What a journal hears from a client, and the restore that puts messages back only where Redis lost them. */
class JournalHooksTests extends StandaloneRedisTest {

    private final RecordingJournal journal = new RecordingJournal();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    private RmqClient client(TopicDefinition... topics) {
        RmqClient client = RmqClient.builder(redisson).topics(List.of(topics)).journal(journal).build();
        open.add(0, client);
        return client;
    }

    @Test
    void aSendIsJournaledAfterRedisStoredItAndWaitsForTheJournal() {
        RmqClient client = client(Fixtures.topic("j-p", TopicType.PRIORITY, 2));
        journal.hold = new CompletableFuture<>();
        CompletableFuture<?> send = client.producer().sendAsync(OutgoingMessage.priority("j-p", "a", 40).withKey("a")
                .withHeader("h", "v").withTtl(Duration.ofMinutes(1))).toCompletableFuture();
        await().until(() -> journal.sends.size() == 1);
        // Redis stored it before the journal heard of it; the send waits for the journal
        assertThat(client.producer().get(MessageRef.of("j-p", "a"))).isPresent();
        assertThat(send).isNotDone();
        journal.hold.complete(null);
        await().until(send::isDone);

        JournaledSend sent = journal.sends.get(0);
        assertThat(sent.key()).isEqualTo("a");
        assertThat(sent.score()).isEqualTo(40);
        assertThat(sent.headers()).containsEntry("h", "v");
        assertThat(sent.expireAt()).isAfter(Instant.now());
        assertThat(new String(sent.payload(), StandardCharsets.UTF_8)).isEqualTo("a");
    }

    @Test
    void aFailingJournalFailsTheSendThoughRedisHoldsTheMessage() {
        RmqClient client = client(Fixtures.topic("j-p", TopicType.PRIORITY, 2));
        journal.hold = CompletableFuture.failedFuture(new IllegalStateException("journal down"));
        assertThatThrownBy(() -> client.producer().send(OutgoingMessage.priority("j-p", "a", 40).withKey("a")))
                .hasMessageContaining("journal down");
        assertThat(client.producer().get(MessageRef.of("j-p", "a"))).isPresent();
    }

    @Test
    void everyDeliveryIsAnEventWithItsAttemptAndAtMostOnceSaysSo() {
        RmqClient client = client(Fixtures.topic("j-p", TopicType.PRIORITY, 1),
                TopicDefinition.builder("j-once", TopicType.PRIORITY).slotAmount(1)
                        .delivery(DeliveryGuarantee.AT_MOST_ONCE).build());
        client.producer().send(OutgoingMessage.priority("j-p", "a", 40).withKey("a"));
        client.producer().send(OutgoingMessage.priority("j-once", "b", 40).withKey("b"));
        RmqPuller<String> puller = client.puller(String.class).topics("j-p", "j-once").build();
        open.add(0, puller);
        puller.start();
        List<PulledMessage<String>> first = pollAll(puller, 2);
        first.stream().filter(m -> m.key().equals("a")).findFirst().orElseThrow().retryNow("again");
        pollAll(puller, 1).get(0).ack();

        List<RmqEvent.Delivered> delivered = journal.events.stream().filter(RmqEvent.Delivered.class::isInstance)
                .map(RmqEvent.Delivered.class::cast).toList();
        assertThat(delivered).extracting(RmqEvent.Delivered::key, RmqEvent.Delivered::attempt,
                RmqEvent.Delivered::atMostOnce).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple("a", 1, false), org.assertj.core.groups.Tuple.tuple("b", 1, true),
                org.assertj.core.groups.Tuple.tuple("a", 2, false));
    }

    @Test
    void restoreWritesOnlyKeysTheSlotDoesNotHoldWithTheirAttemptsAndTimes() {
        TopicDefinition topic = TopicDefinition.builder("j-r", TopicType.FIXED_TIME).slotAmount(2).build();
        RmqClient client = client(topic);
        long due = Instant.now().plus(Duration.ofHours(1)).toEpochMilli();
        long expires = due + 60_000;
        client.producer().send(OutgoingMessage.fixedTime("j-r", "waiting", Instant.ofEpochMilli(due)).withKey("w"));
        int slot = client.producer().get(MessageRef.of("j-r", "w")).orElseThrow().slot();
        int slotOfN = topic.slotOf("n", null);

        List<RmqRestorer.Outcome> outcomes = client.restorer().restore("j-r", List.of(
                new RestoredMessage("w", slot, due, 0, 0, 0, Map.of(), bytes("other")),
                new RestoredMessage("n", slotOfN, due, 0, expires, 3, Map.of("h", "v"), bytes("new"))));
        assertThat(outcomes).containsExactly(RmqRestorer.Outcome.PRESENT, RmqRestorer.Outcome.RESTORED);
        assertThat(client.producer().get(MessageRef.of("j-r", "w")).orElseThrow().payloadText()).isEqualTo("waiting");
        StoredMessage restored = client.producer().get(MessageRef.of("j-r", "n")).orElseThrow();
        assertThat(restored.slot()).isEqualTo(slotOfN);
        assertThat(restored.attempts()).isEqualTo(3);
        assertThat((long) restored.score()).isEqualTo(due);
        assertThat(restored.expiresAt()).contains(Instant.ofEpochMilli(expires));
        assertThat(restored.headers()).containsEntry("h", "v");

        // a second run changes nothing
        assertThat(client.restorer().restore("j-r", List.of(new RestoredMessage("n", slotOfN, due, 0, 0, 0, Map.of(),
                bytes("again"))))).containsExactly(RmqRestorer.Outcome.PRESENT);
        assertThat(client.producer().get(MessageRef.of("j-r", "n")).orElseThrow().payloadText()).isEqualTo("new");
    }

    @Test
    void aRestoredMessageWhoseTimeToLiveRanOutEndsAsTheTopicsExpiryActionSays() {
        RmqClient client = client(
                TopicDefinition.builder("j-dead", TopicType.PRIORITY).slotAmount(1).ttl(Duration.ofSeconds(8))
                        .expiry(ExpiryAction.DEAD).build(),
                TopicDefinition.builder("j-drop", TopicType.PRIORITY).slotAmount(1).ttl(Duration.ofSeconds(8))
                        .expiry(ExpiryAction.DROP).build());
        long ranOut = redisTimeMs() - 1_000;
        long later = redisTimeMs() + 60_000;

        assertThat(client.restorer().restore("j-dead", List.of(
                new RestoredMessage("gone", 0, 40, 0, ranOut, 1, Map.of(), bytes("gone")),
                new RestoredMessage("kept", 0, 40, 0, later, 0, Map.of(), bytes("kept")))))
                .containsExactly(RmqRestorer.Outcome.EXPIRED, RmqRestorer.Outcome.RESTORED);
        assertThat(client.deadQueue().list("j-dead", 0, 0, 10)).singleElement().satisfies(dead -> {
            assertThat(dead.key()).isEqualTo("gone");
            assertThat(dead.reason()).isEqualTo(DeadReason.EXPIRED);
            assertThat(dead.payloadText()).isEqualTo("gone");
        });
        assertThat(client.producer().get(MessageRef.of("j-dead", "kept"))).isPresent();

        assertThat(client.restorer().restore("j-drop", List.of(
                new RestoredMessage("gone", 0, 40, 0, ranOut, 1, Map.of(), bytes("gone")))))
                .containsExactly(RmqRestorer.Outcome.EXPIRED);
        assertThat(client.deadQueue().count("j-drop")).isZero();
        assertThat(client.producer().get(MessageRef.of("j-drop", "gone"))).isEmpty();
        // a second run finds the dead one present, and the dropped one expired again: nothing is written either way
        assertThat(client.restorer().restore("j-dead", List.of(
                new RestoredMessage("gone", 0, 40, 0, ranOut, 1, Map.of(), bytes("gone")))))
                .containsExactly(RmqRestorer.Outcome.PRESENT);
        assertThat(client.deadQueue().count("j-dead")).isEqualTo(1);
    }

    @Test
    void restoreRefusesASlotOutsideTheTopicAndAnUnknownTopic() {
        RmqClient client = client(TopicDefinition.builder("j-r", TopicType.FIXED_TIME).slotAmount(2).build());
        assertThatThrownBy(() -> client.restorer().restore("j-r", List.of(new RestoredMessage("k", 2, 0, 0, 0, 0,
                Map.of(), bytes("x"))))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slot 2, outside topic j-r's 0..1");
        assertThatThrownBy(() -> client.restorer().restore("nope", List.of()))
                .hasMessageContaining("nope");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<PulledMessage<String>> pollAll(RmqPuller<String> puller, int count) {
        List<PulledMessage<String>> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(puller.poll(count - got.size(), Duration.ofMillis(300)));
            return got.size() == count;
        });
        return got;
    }

    @Test
    void aClearJournalsEachMessageItRemovedAsCancelledSoThatNoRestoreBringsItBack() {
        RmqClient client = client(Fixtures.topic("j-c", TopicType.PRIORITY, 4));
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            batch.add(OutgoingMessage.priority("j-c", "m" + i, 40).withKey("k" + i));
        }
        client.producer().sendAll(batch);

        assertThat(client.admin().clear("j-c").waiting()).isEqualTo(12);

        assertThat(journal.changes).hasSize(12).allSatisfy(change -> {
            assertThat(change.topic()).isEqualTo("j-c");
            assertThat(change.kind()).isEqualTo(JournaledChange.Kind.CANCELLED);
        });
        assertThat(journal.changes.stream().map(JournaledChange::key).sorted().toList())
                .containsExactlyInAnyOrderElementsOf(batch.stream().map(OutgoingMessage::key).toList());
    }

    /** A journal that keeps what it hears, and answers sends with {@link #hold}. */
    private static final class RecordingJournal implements MessageJournal {

        final List<JournaledSend> sends = new CopyOnWriteArrayList<>();
        final List<RmqEvent> events = new CopyOnWriteArrayList<>();
        final List<JournaledChange> changes = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Void> hold = CompletableFuture.completedFuture(null);

        @Override
        public CompletionStage<Void> sent(List<JournaledSend> batch) {
            sends.addAll(batch);
            return hold;
        }

        @Override
        public void changed(JournaledChange change) {
            changes.add(change);
        }

        @Override
        public void onEvent(RmqEvent event) {
            events.add(event);
        }
    }
}
