package dev.rmq.cluster;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.Progress;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A puller and the inspector on the 3-master Cluster, one topic of each type spread over every master. */
class ClusterPullTests extends ClusterFixture {

    @Test
    void aPullerOverThreeTopicsOnEveryMasterReceivesEachMessageOnceAndCountsAndPeekSeeThemAll() {
        List<TopicDefinition> topics = new ArrayList<>();
        for (TopicType type : TopicType.values()) {
            topics.add(freshTopic("cluster-pull-" + shortName(type), type));
        }
        try (RmqClient rmq = RmqClient.builder(redisson).topics(topics).build()) {
            long fixedTime = redisTimeMs() + 500;
            List<OutgoingMessage> batch = new ArrayList<>();
            for (TopicDefinition topic : topics) {
                for (int i = 0; i < 60; i++) {
                    long value = switch (topic.type()) {
                        case RANGE_MERGE -> 100;
                        case PRIORITY -> 17 + i;
                        case FIXED_TIME -> fixedTime;
                    };
                    batch.add(message(topic, "k" + i, "payload-" + i, value));
                }
            }
            rmq.producer().sendAll(batch);
            TopicDefinition priority = topics.get(TopicType.PRIORITY.ordinal());
            TopicCounts counts = rmq.inspector().counts(priority.name());
            assertThat(counts.total().dueNow()).isEqualTo(60);
            assertThat(counts.slots()).hasSize(SLOTS);
            assertThat(rmq.inspector().peek(priority.name(), 0, 5)).extracting(StoredMessage::key)
                    .containsExactly("k59", "k58", "k57", "k56", "k55");

            RmqPuller<String> puller = rmq.puller(String.class).topics(topics.stream().map(TopicDefinition::name)
                    .toArray(String[]::new)).build();
            puller.start();
            Map<String, Integer> received = new HashMap<>();
            await().atMost(PATIENCE).until(() -> {
                List<PulledMessage<String>> got = puller.poll(50, java.time.Duration.ofMillis(500));
                got.forEach(m -> received.merge(m.topic() + "/" + m.key(), 1, Integer::sum));
                puller.ackAll(got);
                return received.size() == 180;
            });

            assertThat(received.values()).containsOnly(1);
            assertThat(puller.poll(100, java.time.Duration.ofSeconds(1))).isEmpty();
            for (TopicDefinition topic : topics) {
                assertNothingLeftBehind(topic);
            }
        }
    }

    /** A cancel in flight on every master: each delivery leaves at once, and each holder's ack says so. */
    @Test
    void aCancelInFlightOnEveryMasterEndsEachDeliveryAsCancelled() {
        TopicDefinition topic = freshTopic("cluster-cancel", TopicType.PRIORITY);
        try (RmqClient rmq = RmqClient.builder(redisson).topic(topic).build()) {
            List<PulledMessage<String>> held = heldOnEveryMaster(rmq, topic);

            for (PulledMessage<String> message : held) {
                assertThat(rmq.producer().cancel(ref(topic.name(), message.key()))).isTrue();
            }
            assertThat(rmq.inspector().counts(topic.name()).total().inFlight()).isZero();
            for (PulledMessage<String> message : held) {
                assertThat(message.cancelled()).isTrue();
                assertThat(message.ack()).as("the ack of %s", message.key()).isEqualTo(AckOutcome.CANCELLED);
            }
            assertNothingLeftBehind(topic);
        }
    }

    /**
     * Progress reports on every master: each shows in its delivery's lookup and in the in-flight page, and each goes
     * with its delivery's ack, leaving nothing behind.
     */
    @Test
    void progressReportedOnEveryMasterIsShownAndGoesWithTheAcks() {
        TopicDefinition topic = freshTopic("cluster-progress", TopicType.PRIORITY);
        try (RmqClient rmq = RmqClient.builder(redisson).topic(topic).build()) {
            List<PulledMessage<String>> held = heldOnEveryMaster(rmq, topic);

            for (PulledMessage<String> message : held) {
                assertThat(message.reportProgress(Integer.parseInt(message.key().substring(1)), "step of "
                        + message.key(), java.time.Duration.ofSeconds(60))).isTrue();
            }
            for (PulledMessage<String> message : held) {
                assertThat(rmq.producer().get(ref(topic.name(), message.key())).orElseThrow().progress())
                        .as("the progress of %s", message.key()).map(Progress::note)
                        .contains("step of " + message.key());
            }
            assertThat(rmq.inspector().inFlight(topic.name(), 0, 100)).hasSize(48)
                    .allSatisfy(m -> assertThat(m.progress()).map(Progress::percent)
                            .contains(Integer.parseInt(m.key().substring(1))));
            assertThat(held).allSatisfy(message -> assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED));
            assertNothingLeftBehind(topic);
        }
    }

    /** 48 messages of {@code topic} sent and pulled by one puller, held, from slots on every master. */
    private static List<PulledMessage<String>> heldOnEveryMaster(RmqClient rmq, TopicDefinition topic) {
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 48; i++) {
            batch.add(message(topic, "k" + i, "payload-" + i, 17 + i));
        }
        rmq.producer().sendAll(batch);
        RmqPuller<String> puller = rmq.puller(String.class).topics(topic.name()).build();
        puller.start();
        List<PulledMessage<String>> held = new ArrayList<>();
        await().atMost(PATIENCE).until(() -> {
            held.addAll(puller.poll(48 - held.size(), java.time.Duration.ofMillis(500)));
            return held.size() == 48;
        });
        assertThat(held.stream().map(m -> topic.slotOf(m.key())).distinct()).hasSize(SLOTS);
        return held;
    }
}
