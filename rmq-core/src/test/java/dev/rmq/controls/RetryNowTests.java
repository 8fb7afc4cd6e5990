package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RetryNowTests extends ControlsTest {

    @Test
    void aRetryNowSkipsTheBackoffButCountsAsAnAttemptSoTheMaximumRetriesHold() {
        // a backoff of a minute: any retry that waited for it would never come within the test
        RmqClient rmq = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).maxRetries(2)
                        .backoff(BackoffPolicy.fixed(Duration.ofMinutes(1))).build(),
                TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1).maxRetries(5)
                        .backoff(BackoffPolicy.fixed(Duration.ofMinutes(1))).build());
        rmq.producer().send(OutgoingMessage.priority("jobs", "j", 50).withKey("j"));
        rmq.producer().send(OutgoingMessage.fixedTime("orders", "o", Instant.ofEpochMilli(redisTimeMs() + 50)).withKey("o"));
        List<String> jobs = new CopyOnWriteArrayList<>();
        List<String> orders = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            jobs.add(m.attempt() + ":" + m.lastError());
            return ConsumeResult.retryNow("again");
        });
        start(rmq, "orders", String.class, m -> {
            orders.add(m.attempt() + ":" + m.lastError());
            return m.attempt() < 2 ? ConsumeResult.retryNow("once more") : ConsumeResult.success();
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.deadQueue().count("jobs") == 1 && orders.size() == 2);
        assertThat(jobs).containsExactly("1:", "2:again", "3:again");
        assertThat(rmq.deadQueue().list("jobs", 0, 0, 1).get(0).lastError()).isEqualTo("again");
        assertThat(orders).containsExactly("1:", "2:once more");
    }
}
