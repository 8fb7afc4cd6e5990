package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.SendReceipt.Outcome;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a send of a key already known to its slot does, under each rule, set on the topic or on the send; and what
 * its receipt, a batch and the meters say of it.
 */
class RepeatedKeyTests extends ControlsTest {

    private static final TopicDefinition FIRST = TopicDefinition.builder("first", TopicType.RANGE_MERGE).slotAmount(1)
            .repeatedKey(RepeatedKey.KEEP_FIRST).build();
    private static final TopicDefinition DEBOUNCED = TopicDefinition.builder("debounced", TopicType.RANGE_MERGE)
            .slotAmount(1).repeatedKey(RepeatedKey.DEBOUNCE).build();
    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1)
            .build();
    private static final TopicDefinition CAPPED = TopicDefinition.builder("capped", TopicType.PRIORITY).slotAmount(1)
            .maxBacklog(1).repeatedKey(RepeatedKey.KEEP_FIRST).build();
    private static final Duration RANGE = Duration.ofMinutes(10);

    private final RmqClient rmq = closedAfterTest(client(FIRST, DEBOUNCED, JOBS, CAPPED));

    private SendReceipt send(OutgoingMessage message) {
        return rmq.producer().send(message);
    }

    private String payloadOf(String topic, String key) {
        StoredMessage stored = rmq.producer().get(MessageRef.of(topic, key)).orElseThrow();
        return stored.payloadText();
    }

    private double dueOf(String topic, String key) {
        return Double.parseDouble(String.valueOf(redis.command("ZSCORE", "rmq:{" + topic + "_0}", key)));
    }

    @Test
    void keepFirstLeavesTheWaitingMessageAsItIsUnlessASendSaysOtherwise() {
        assertThat(send(OutgoingMessage.rangeMerge("first", "a", RANGE).withKey("k")).outcome()).isEqualTo(Outcome.ADDED);
        SendReceipt second = send(OutgoingMessage.rangeMerge("first", "b", RANGE).withKey("k"));

        assertThat(second.outcome()).isEqualTo(Outcome.KEPT);
        assertThat(second.written()).isFalse();
        assertThat(payloadOf("first", "k")).isEqualTo("a");
        assertThat(count("rmq.send.duplicates", "topic", "first", "result", "kept")).isEqualTo(1);

        SendReceipt replaced = send(OutgoingMessage.rangeMerge("first", "c", RANGE).withKey("k")
                .withRepeatedKey(RepeatedKey.REPLACE));
        assertThat(replaced.outcome()).isEqualTo(Outcome.MERGED);
        assertThat(payloadOf("first", "k")).isEqualTo("c");
    }

    @Test
    void keepFirstKeepsAMessageParkedBehindItsDeliveryAndTheParkedOneFollows() {
        // without ZooKeeper both pullers poll the one slot: the second takes a new send of the held key, and parks it
        RmqPuller<String> holder = startPuller(rmq, "jobs");
        RmqPuller<String> other = startPuller(rmq, "jobs");
        OutgoingMessage job = OutgoingMessage.priority("jobs", "first", 50).withKey("k")
                .withRepeatedKey(RepeatedKey.KEEP_FIRST);
        send(job);
        PulledMessage<String> held = holder.poll(1, Duration.ofSeconds(2)).get(0);
        // the key is in flight and waits nowhere: a send adds it
        assertThat(send(OutgoingMessage.priority("jobs", "second", 50).withKey("k")
                .withRepeatedKey(RepeatedKey.KEEP_FIRST)).outcome()).isEqualTo(Outcome.ADDED);
        assertThat(other.poll(1, Duration.ofMillis(300))).isEmpty();
        assertThat(rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow().state()).isEqualTo(MessageState.PARKED);

        assertThat(send(OutgoingMessage.priority("jobs", "third", 50).withKey("k")
                .withRepeatedKey(RepeatedKey.KEEP_FIRST)).outcome()).isEqualTo(Outcome.KEPT);

        assertThat(held.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(other.poll(1, Duration.ofSeconds(2))).singleElement()
                .satisfies(next -> assertThat(next.payload()).isEqualTo("second"));
    }

    @Test
    void debounceMovesARangeMergeMessageDueTimeToTheLatestSendAndReplaceKeepsTheFirst() {
        long before = redisTimeMs();
        send(OutgoingMessage.rangeMerge("debounced", "a", RANGE).withKey("k"));
        double first = dueOf("debounced", "k");
        assertThat(first).isBetween((double) before + RANGE.toMillis(), (double) redisTimeMs() + RANGE.toMillis());

        awaitRedisClockPast((long) first - RANGE.toMillis(), 20);
        SendReceipt again = send(OutgoingMessage.rangeMerge("debounced", "b", RANGE).withKey("k"));
        double moved = dueOf("debounced", "k");
        assertThat(again.outcome()).isEqualTo(Outcome.MERGED);
        assertThat(moved).isGreaterThan(first);
        assertThat(payloadOf("debounced", "k")).isEqualTo("b");

        awaitRedisClockPast((long) moved - RANGE.toMillis(), 20);
        send(OutgoingMessage.rangeMerge("debounced", "c", RANGE).withKey("k").withRepeatedKey(RepeatedKey.REPLACE));
        assertThat(dueOf("debounced", "k")).as("a replacing send keeps the due time").isEqualTo(moved);
    }

    @Test
    void debounceIsRefusedWherePriorityMessagesHaveNoDueTime() {
        assertThatThrownBy(() -> TopicDefinition.builder("p", TopicType.PRIORITY).repeatedKey(RepeatedKey.DEBOUNCE)
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DEBOUNCE");
        assertThatThrownBy(() -> OutgoingMessage.priority("jobs", "x", 50).withRepeatedKey(RepeatedKey.DEBOUNCE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("priority topic 'jobs'");
        assertThatThrownBy(() -> RepeatedKey.throttle(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("throttle window");
        assertThatThrownBy(() -> RepeatedKey.of(RepeatedKey.Kind.THROTTLE, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs its window");
        assertThatThrownBy(() -> RepeatedKey.of(RepeatedKey.Kind.KEEP_FIRST, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only THROTTLE has a window");
    }

    @Test
    void aThrottledKeyIsRefusedForItsWindowEvenAfterItWasConsumed() {
        RmqPuller<String> puller = startPuller(rmq, "jobs");
        Duration window = Duration.ofMillis(1500);
        OutgoingMessage job = OutgoingMessage.priority("jobs", "x", 50).withKey("k")
                .withRepeatedKey(RepeatedKey.throttle(window));
        long before = redisTimeMs();
        assertThat(send(job).outcome()).isEqualTo(Outcome.ADDED);
        long after = redisTimeMs();
        assertThat(send(job).outcome()).isEqualTo(Outcome.THROTTLED);

        PulledMessage<String> taken = puller.poll(1, Duration.ofSeconds(2)).get(0);
        assertThat(taken.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(rmq.producer().get(MessageRef.of("jobs", "k"))).isEmpty();
        // consumed, and still within its window
        if (redisTimeMs() < before + window.toMillis()) {
            assertThat(send(job).outcome()).isEqualTo(Outcome.THROTTLED);
        }
        assertThat(count("rmq.send.duplicates", "topic", "jobs", "result", "throttled")).isPositive();

        awaitRedisClockPast(after, window.toMillis());
        assertThat(send(job).outcome()).isEqualTo(Outcome.ADDED);
        assertThat((Long) redis.command("PTTL", "rmq:throttled{jobs_0}"))
                .as("the marks' set lives as long as its latest mark").isBetween(1L, window.toMillis());
    }

    @Test
    void ofSendsOfOneKeyRacingUnderAThrottleExactlyOneIsAccepted() throws Exception {
        int senders = 24;
        CyclicBarrier barrier = new CyclicBarrier(senders);
        OutgoingMessage job = OutgoingMessage.priority("jobs", "x", 50).withKey("raced")
                .withRepeatedKey(RepeatedKey.throttle(Duration.ofMinutes(1)));
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        try {
            List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                receipts.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        barrier.await();
                    } catch (Exception e) {
                        throw new IllegalStateException("a sender was not started with the others", e);
                    }
                    return send(job);
                }, pool));
            }
            List<Outcome> outcomes = receipts.stream().map(CompletableFuture::join).map(SendReceipt::outcome).toList();
            assertThat(outcomes).filteredOn(o -> o == Outcome.ADDED).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o == Outcome.THROTTLED).hasSize(senders - 1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBatchAnswersDuplicatesWithReceiptsAndLeavesThemOutOfWhatToResend() {
        List<SendReceipt> receipts = rmq.producer().sendAll(List.of(
                OutgoingMessage.rangeMerge("first", "a", RANGE).withKey("k"),
                OutgoingMessage.rangeMerge("first", "b", RANGE).withKey("k")));
        assertThat(receipts).extracting(SendReceipt::outcome).containsExactly(Outcome.ADDED, Outcome.KEPT);

        send(OutgoingMessage.priority("capped", "a", 50).withKey("k"));
        assertThatThrownBy(() -> rmq.producer().sendAll(List.of(
                OutgoingMessage.priority("capped", "b", 50).withKey("k"),
                OutgoingMessage.priority("capped", "c", 50).withKey("other"))))
                .isInstanceOfSatisfying(BatchSendException.class, batch -> {
                    assertThat(batch.outcomes()).extracting(SendOutcome::status)
                            .containsExactly(SendOutcome.Status.DUPLICATE, SendOutcome.Status.REFUSED);
                    assertThat(batch.duplicates()).singleElement()
                            .satisfies(r -> assertThat(r.outcome()).isEqualTo(Outcome.KEPT));
                    assertThat(batch.toResend()).extracting(OutgoingMessage::key).containsExactly("other");
                    assertThat(batch.getMessage()).contains("1 duplicate(s)");
                });
    }

    @Test
    void aFixedTimeMessageUnderDebounceTakesTheLatestTime() {
        TopicDefinition timers = TopicDefinition.builder("timers", TopicType.FIXED_TIME).slotAmount(1)
                .repeatedKey(RepeatedKey.DEBOUNCE).build();
        RmqClient client = closedAfterTest(client(timers));
        Instant later = Instant.ofEpochMilli(redisTimeMs()).plus(Duration.ofHours(2));
        client.producer().send(OutgoingMessage.fixedTime("timers", "a", later).withKey("k"));
        client.producer().send(OutgoingMessage.fixedTime("timers", "b", later.minus(Duration.ofHours(1))).withKey("k"));
        assertThat(dueOf("timers", "k")).isEqualTo((double) later.minus(Duration.ofHours(1)).toEpochMilli());
    }
}
