package dev.rmq.inspect;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.journal.RestoredMessage;
import dev.rmq.journal.RmqRestorer;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One rule for RETRYING, on every type: a message that failed and waits out its backoff. The state that find and
 * peek give, and the counts, agree after a retry and after a restore.
 */
class MessageStateTests extends StandaloneRedisTest {

    private static final Duration BACKOFF = Duration.ofHours(1);

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    private TopicDefinition topic(TopicType type) {
        TopicDefinition topic = TopicDefinition.builder("states-" + type.name().toLowerCase(), type).slotAmount(1)
                .maxRetries(3).backoff(BackoffPolicy.fixed(BACKOFF)).build();
        rmq = RmqClient.builder(redisson).topics(List.of(topic)).build();
        return topic;
    }

    private OutgoingMessage message(TopicDefinition topic, String key) {
        return switch (topic.type()) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), "m", Duration.ofMillis(1)).withKey(key);
            case PRIORITY -> OutgoingMessage.priority(topic.name(), "m", 100).withKey(key);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), "m", Instant.ofEpochMilli(redisTimeMs()))
                    .withKey(key);
        };
    }

    /** The state find and peek give for the topic's one message, and the counts, which must agree. */
    private void assertAgree(TopicDefinition topic, String key, MessageState state, int attempts) {
        StoredMessage found = rmq.inspector().find(MessageRef.of(topic.name(), key)).orElseThrow();
        assertThat(found.state()).as("find, %s", topic.type()).isEqualTo(state);
        assertThat(found.attempts()).isEqualTo(attempts);
        List<StoredMessage> page = rmq.inspector().peek(topic.name(), 0, 10);
        assertThat(page).as("peek, %s", topic.type()).singleElement()
                .satisfies(m -> assertThat(m.state()).isEqualTo(state));
        SlotCounts counts = rmq.inspector().counts(topic.name()).total();
        assertThat(counts.retrying()).as("counts' retrying, %s", topic.type())
                .isEqualTo(state == MessageState.RETRYING ? 1 : 0);
        if (state == MessageState.RETRYING) {
            long dueAgain = found.visibleAt().orElseThrow().toEpochMilli();
            assertThat(dueAgain).isBetween(redisTimeMs() + BACKOFF.toMillis() - 60_000,
                    redisTimeMs() + BACKOFF.toMillis());
            assertThat(counts.later()).isEqualTo(1);
        }
    }

    @Test
    void aMessageWaitingOutItsBackoffIsRetryingEverywhereOnEveryType() {
        for (TopicType type : TopicType.values()) {
            TopicDefinition topic = topic(type);
            rmq.producer().send(message(topic, "k"));
            try (RmqPuller<String> puller = rmq.puller(String.class).topics(topic.name()).build()) {
                puller.start();
                List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(5));
                assertThat(got).hasSize(1);
                assertThat(got.get(0).retry("boom")).isEqualTo(AckOutcome.RETRY);
            }
            assertAgree(topic, "k", MessageState.RETRYING, 1);
            rmq.close();
            rmq = null;
        }
    }

    @Test
    void aRestoredMessageThatFailedBeforeIsWaitingWhenDueAndRetryingWhenItsBackoffRunsOn() {
        for (TopicType type : TopicType.values()) {
            TopicDefinition topic = topic(type);
            long now = redisTimeMs();
            byte[] payload = "\"m\"".getBytes(StandardCharsets.UTF_8);
            long dueNow = type.isTimed() ? now - 1000 : 100;
            assertThat(rmq.restorer().restore(topic.name(), List.of(
                    new RestoredMessage("in-flight", 0, dueNow, 0, 0, 2, Map.of(), payload, "lost with Redis"))))
                    .containsExactly(RmqRestorer.Outcome.RESTORED);
            assertAgree(topic, "in-flight", MessageState.WAITING, 2);

            rmq.producer().cancel(MessageRef.of(topic.name(), "in-flight"));
            long later = now + BACKOFF.toMillis() - 1000;
            RestoredMessage backingOff = type.isTimed()
                    ? new RestoredMessage("backing-off", 0, later, 0, 0, 1, Map.of(), payload, "boom")
                    : new RestoredMessage("backing-off", 0, 100, later, 0, 1, Map.of(), payload, "boom");
            assertThat(rmq.restorer().restore(topic.name(), List.of(backingOff)))
                    .containsExactly(RmqRestorer.Outcome.RESTORED);
            assertAgree(topic, "backing-off", MessageState.RETRYING, 1);
            rmq.close();
            rmq = null;
        }
    }
}
