package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker that polls the same slot again at once sends the endings of its last batch with that poll: a backlog
 * consumed a message at a time costs one script call per message, not two, and every ending still counts. At light
 * load the endings wait a moment for the slot's next poll.
 */
class CarriedEndingsTests extends StandaloneRedisTest {

    private static final int MESSAGES = 200;

    private RmqClient rmq;
    private RmqConsumerContainer<String> container;

    @AfterEach
    void close() {
        if (container != null) {
            container.stop();
        }
        if (rmq != null) {
            rmq.close();
        }
    }

    @Test
    void aBacklogConsumedOneAtATimeCostsOneCallPerMessageAndEveryEndingCounts() {
        TopicDefinition topic = TopicDefinition.builder("carried", TopicType.PRIORITY).slotAmount(1).maxRetries(1)
                .backoff(BackoffPolicy.fixed(Duration.ofHours(1))).build();
        rmq = RmqClient.builder(redisson).topics(List.of(topic)).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            batch.add(OutgoingMessage.priority(topic.name(), "m" + i, 100 + i).withKey("k" + i));
        }
        rmq.producer().sendAll(batch);
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        long before = scriptCalls();
        container = rmq.container(topic.name(), String.class, message -> {
            handled.merge(message.key(), 1, Integer::sum);
            // every tenth fails once: its ending, a retry, rides with the next poll like a commit
            return message.key().endsWith("0") ? ConsumeResult.retry("every tenth fails") : ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withBatchSize(1)).build();
        container.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == MESSAGES
                && rmq.inspector().counts(topic.name()).total().inFlight() == 0);
        long calls = scriptCalls() - before;

        assertThat(handled.values()).as("each handled once").containsOnly(1);
        assertThat(rmq.inspector().counts(topic.name()).total().retrying()).as("the failures, waiting out the backoff")
                .isEqualTo(MESSAGES / 10);
        assertThat(rmq.producer().get(MessageRef.of(topic.name(), "k10"))).hasValueSatisfying(m ->
                assertThat(m.lastError()).isEqualTo("every tenth fails"));
        // one poll per message, the last batch's ending aboard; a few more for the start and the empty end
        assertThat(calls).as("script calls for %s messages", MESSAGES).isLessThan(MESSAGES + 20);
    }
    @Test
    void atLightLoadAnEndingWaitsForTheSlotsNextPollWhenItComesWithinTheHold() {
        TopicDefinition topic = TopicDefinition.builder("light", TopicType.FIXED_TIME).slotAmount(1).build();
        rmq = RmqClient.builder(redisson).topics(List.of(topic)).build();
        // one message falling due every 5 ms, a second from now: each poll takes one, and the next is 5 ms away
        Instant first = Instant.now().plusSeconds(1);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            batch.add(OutgoingMessage.fixedTime(topic.name(), "m" + i, first.plusMillis(5L * i)).withKey("k" + i));
        }
        rmq.producer().sendAll(batch);
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        container = rmq.container(topic.name(), String.class, message -> {
            handled.merge(message.key(), 1, Integer::sum);
            return ConsumeResult.success();
        }).build();
        long before = scriptCalls();
        container.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == MESSAGES
                && rmq.inspector().counts(topic.name()).total().inFlight() == 0);
        long calls = scriptCalls() - before;

        assertThat(handled.values()).as("each handled once").containsOnly(1);
        assertThat(rmq.inspector().counts(topic.name()).total().waiting()).isZero();
        // a poll per message with the last one's ending aboard, where a call of its own per ending made it two; a
        // poll that comes late (a busy machine) sends its ending alone, so some slack
        assertThat(calls).as("script calls for %s messages due 5 ms apart", MESSAGES).isLessThan(MESSAGES * 3 / 2);
    }
    @Test
    void aHeldEndingOutlastsItsLeaseWhileAnotherSlotsHandlerRunsLongAndCountsOnce() {
        TopicDefinition topic = TopicDefinition.builder("held", TopicType.PRIORITY).slotAmount(2)
                .leaseTimeout(Duration.ofMillis(1000)).build();
        rmq = RmqClient.builder(redisson).topics(List.of(topic)).build();
        String slot0 = basisOf(topic, 0);
        String slot1 = basisOf(topic, 1);
        // most urgent first: a; then the slow one, more urgent than b, which waits on a's slot, so that a's ending is
        // held for b's poll while the slow one runs
        rmq.producer().sendAll(List.of(
                OutgoingMessage.priority(topic.name(), "a", 100).withKey("a").withSlotBasis(slot0),
                OutgoingMessage.priority(topic.name(), "b", 50).withKey("b").withSlotBasis(slot0),
                OutgoingMessage.priority(topic.name(), "slow", 90).withKey("slow").withSlotBasis(slot1)));
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        List<String> order = new CopyOnWriteArrayList<>();
        /** What a looked like at a moment of the slow handler. */
        record Seen(Instant at, Optional<StoredMessage> a) {
        }
        List<Seen> aDuringTheSlowOne = new CopyOnWriteArrayList<>();
        container = rmq.container(topic.name(), String.class, message -> {
            handled.merge(message.key(), 1, Integer::sum);
            order.add(message.key());
            if (message.key().equals("slow")) {
                // the handler runs past a's 1 s lease, on the only worker thread, which holds a's ending meanwhile
                message.extendLease(Duration.ofSeconds(10));
                Thread.sleep(1500); // the handler's work, not a wait: it must outlast a's lease
                aDuringTheSlowOne.add(new Seen(Instant.now(),
                        rmq.producer().get(MessageRef.of(topic.name(), "a").withSlotBasis(slot0))));
                // and a little more: the look above falls inside the handler, while a's ending is still held
                Thread.sleep(300); // the handler's work too, not a wait
            }
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withConcurrency(1).withBatchSize(1)).build();
        container.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 3
                && rmq.inspector().counts(topic.name()).total().inFlight() == 0);

        assertThat(order).containsExactly("a", "slow", "b");
        // 1.5 s after a was taken under a 1 s lease, its ending still held: the keeper renewed its lease
        assertThat(aDuringTheSlowOne).singleElement().satisfies(seen -> assertThat(seen.a()).hasValueSatisfying(m -> {
            assertThat(m.state()).isEqualTo(MessageState.IN_FLIGHT);
            assertThat(m.leaseDeadline()).hasValueSatisfying(deadline -> assertThat(deadline).isAfter(seen.at()));
        }));
        assertThat(handled).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1, "slow", 1, "b", 1));
        assertThat(rmq.inspector().counts(topic.name()).total().waiting()).isZero();
        assertThat(rmq.inspector().counts(topic.name()).total().retrying()).isZero();
    }

    /** A slot basis that routes to {@code slot} of {@code topic}. */
    private static String basisOf(TopicDefinition topic, int slot) {
        for (int i = 0; ; i++) {
            if (topic.slotOf("basis-" + i) == slot) {
                return "basis-" + i;
            }
        }
    }
}
