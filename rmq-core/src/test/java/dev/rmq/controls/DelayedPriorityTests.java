package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class DelayedPriorityTests extends ControlsTest {

    /** What a handler saw: the key, and the Redis clock when it started. */
    private record Seen(String key, long atMs) {
    }

    private RmqClient jobs() {
        return client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).build());
    }

    @Test
    void aDelayedMessageIsInvisibleUntilItsTimeThenCompetesByPriority() throws Exception {
        RmqClient rmq = jobs();
        List<Seen> seen = new CopyOnWriteArrayList<>();
        // one message at a time, each taking 200 ms: the delayed ones become visible part-way through. The consumer
        // runs, and a send's encoding and a call have run once, before the clock is read: the 700 ms below hold the
        // sends alone, where a cold start (the codec's first use, the first calls) took up to half of them
        start(rmq, "jobs", String.class, m -> {
            seen.add(new Seen(m.key(), redisTimeMs()));
            Thread.sleep(200); // the handler's work: it paces the consumer, so delayed messages come due part-way
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withBatchSize(1).withIdlePoll(Duration.ofMillis(200)));
        // the scripts are loaded, and the container polls
        await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() > 0);
        rmq.prepare(OutgoingMessage.priority("jobs", "warm", 50).withKey("warm").notBefore(Instant.now()));
        assertThat(rmq.producer().exists(MessageRef.of("jobs", "warm"))).isFalse();
        long sentAt = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "urgent", 1000).withKey("urgent")
                .notBefore(Instant.ofEpochMilli(sentAt + 700)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "delayed-low", 30).withKey("delayed-low")
                .withDelay(Duration.ofMillis(700)));
        StoredMessage waiting = rmq.producer().get(MessageRef.of("jobs", "urgent")).orElseThrow();
        assertThat(waiting.state()).isEqualTo(MessageState.DELAYED);
        assertThat((long) waiting.score()).isEqualTo(sentAt + 700);
        for (int i = 0; i < 5; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "now-" + i, 50).withKey("now-" + i));
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 7);
        List<String> order = seen.stream().map(Seen::key).toList();
        Seen urgent = seen.get(order.indexOf("urgent"));
        assertThat(urgent.atMs()).isGreaterThanOrEqualTo(sentAt + 700);
        // once visible it goes before every waiting message of lower priority, the other delayed one last
        assertThat(order.indexOf("urgent")).isBetween(1, order.size() - 3);
        assertThat(order.get(order.size() - 1)).isEqualTo("delayed-low");
        assertThat(seen.get(order.indexOf("urgent") - 1).atMs()).as("the message before it started before it was visible")
                .isLessThan(sentAt + 700 + 200);
    }

    @Test
    void everyDelayedMessageDueCompetesByPriorityThoughAPollTakesFewerThanAreDue() {
        RmqClient rmq = jobs();
        long now = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "early-low", 20).withKey("early-low")
                .notBefore(Instant.ofEpochMilli(now + 100)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "later-high", 100).withKey("later-high")
                .notBefore(Instant.ofEpochMilli(now + 200)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "waiting", 50).withKey("waiting"));
        awaitRedisClockPast(now, 200);

        List<String> seen = new CopyOnWriteArrayList<>();
        // polls of one message, with two delayed ones due: the first poll must see both
        start(rmq, "jobs", String.class, m -> {
            seen.add(m.key());
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withBatchSize(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
        assertThat(seen).containsExactly("later-high", "waiting", "early-low");
    }

    @Test
    void aMergeTakesTheLatestPriorityAndTheLatestNotBeforeTime() {
        RmqClient rmq = jobs();
        long now = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("jobs", "a", 40).withKey("k").notBefore(Instant.ofEpochMilli(now + 60_000)));
        rmq.producer().send(OutgoingMessage.priority("jobs", "b", 70).withKey("k").notBefore(Instant.ofEpochMilli(now + 120_000)));
        StoredMessage later = rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow();
        assertThat(later.state()).isEqualTo(MessageState.DELAYED);
        assertThat((long) later.score()).isEqualTo(now + 120_000);
        assertThat(later.payloadText()).isEqualTo("b");

        // a send without a not-before time makes it visible at once, at the new priority
        rmq.producer().send(OutgoingMessage.priority("jobs", "c", 90).withKey("k"));
        StoredMessage visible = rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow();
        assertThat(visible.state()).isEqualTo(MessageState.WAITING);
        assertThat(visible.score()).isEqualTo(90);

        // and a later one delays it again
        rmq.producer().send(OutgoingMessage.priority("jobs", "d", 60).withKey("k").withDelay(Duration.ofMinutes(5)));
        assertThat(rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow().state()).isEqualTo(MessageState.DELAYED);
        assertThat(rmq.inspector().totals("jobs").backlog()).isEqualTo(1);
    }

    @Test
    void notBeforeIsOnlyForPriorityMessages() {
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.fixedTime("orders", "o", Instant.now())
                        .notBefore(Instant.now()))
                .withMessage("notBefore is for priority messages; a FIXED_TIME message to topic 'orders' has its due time"
                        + " from its fixed time");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.rangeMerge("prices", "p", Duration.ofSeconds(1))
                        .withDelay(Duration.ofSeconds(1)))
                .withMessageContaining("has its due time from its time range");
        assertThatIllegalArgumentException().isThrownBy(() -> OutgoingMessage.priority("jobs", "j", 50)
                        .withDelay(Duration.ZERO))
                .withMessage("delay must be at least 1 ms, was PT0S");
    }

    @Test
    void aRescheduleMovesAWaitingPriorityMessagesNotBeforeTimeAndKeepsItsPriority() {
        RmqClient rmq = client(TopicDefinition.builder("moved", TopicType.PRIORITY).slotAmount(1).maxRetries(5)
                .backoff(dev.rmq.topic.BackoffPolicy.fixed(Duration.ofHours(1))).build());
        MessageRef visible = MessageRef.of("moved", "visible");
        MessageRef held = MessageRef.of("moved", "held");
        MessageRef retried = MessageRef.of("moved", "retried");
        rmq.producer().send(OutgoingMessage.priority("moved", "r", 90).withKey("retried"));
        rmq.producer().send(OutgoingMessage.priority("moved", "v", 80).withKey("visible"));
        rmq.producer().send(OutgoingMessage.priority("moved", "h", 60).withKey("held").withDelay(Duration.ofHours(1)));
        try (var puller = rmq.puller(String.class).topics("moved").build()) {
            puller.start();
            var first = puller.poll(1, Duration.ofSeconds(2));
            assertThat(first).extracting(m -> m.key()).containsExactly("retried");
            first.get(0).retry("wait out the backoff");
            assertThat(rmq.producer().get(retried).orElseThrow().state()).isEqualTo(MessageState.RETRYING);

            long later = redisTimeMs() + 3_600_000;
            assertThat(rmq.producer().reschedule(visible, Instant.ofEpochMilli(later))).isTrue();
            StoredMessage moved = rmq.producer().get(visible).orElseThrow();
            assertThat(moved.state()).isEqualTo(MessageState.DELAYED);
            assertThat(moved.visibleAt()).hasValue(Instant.ofEpochMilli(later));

            // a time now or past: visible at once, at the priority it had; a retry's backoff gives way as well
            assertThat(rmq.producer().reschedule(held, Instant.now().minusSeconds(1))).isTrue();
            assertThat(rmq.producer().get(held).orElseThrow().priority(TopicType.PRIORITY)).hasValue(60);
            assertThat(rmq.producer().reschedule(retried, Instant.now())).isTrue();
            assertThat(rmq.inspector().counts("moved").total().retrying()).as("nothing waits out a backoff").isZero();
            var next = puller.poll(5, Duration.ofSeconds(2));
            assertThat(next).extracting(m -> m.key()).containsExactly("retried", "held");
            assertThat(next.get(0).attempt()).as("the attempts are kept").isEqualTo(2);
            assertThat(rmq.producer().get(visible).orElseThrow().state()).isEqualTo(MessageState.DELAYED);
        }
        assertThat(rmq.producer().reschedule(MessageRef.of("moved", "nobody"), Instant.now())).isFalse();
    }
}
