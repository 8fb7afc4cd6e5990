package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker that polls the same slot again at once sends the endings of its last batch with that poll: a backlog
 * consumed a message at a time costs one script call per message, not two, and every ending still counts.
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
}
