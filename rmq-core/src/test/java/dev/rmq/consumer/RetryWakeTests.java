package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A retry whose backoff ends before the consumer's planned poll is delivered when the backoff is over: the ack that
 * makes it wait wakes the idle consumer, as a send of an earlier message does, on every topic type.
 */
class RetryWakeTests extends StandaloneRedisTest {

    private static final Duration BACKOFF = Duration.ofMillis(100);
    /** Far longer than the backoff: a retry left to the idle poll would come after the test gave up on it. */
    private static final Duration IDLE_POLL = Duration.ofSeconds(30);

    @ParameterizedTest
    @EnumSource(TopicType.class)
    void aRetryComesWhenItsBackoffIsOverNotAtTheNextIdlePoll(TopicType type) {
        TopicDefinition topic = TopicDefinition.builder("retry-wake-" + type.name().toLowerCase(), type).slotAmount(1)
                .maxRetries(3).backoff(BackoffPolicy.fixed(BACKOFF)).build();
        List<Long> attempts = new CopyOnWriteArrayList<>();
        try (RmqClient rmq = RmqClient.builder(redisson).topics(List.of(topic)).build()) {
            RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, message -> {
                attempts.add(System.nanoTime());
                return attempts.size() == 1 ? ConsumeResult.retry("the first attempt fails") : ConsumeResult.success();
            }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(IDLE_POLL)).build();
            container.start();
            try {
                rmq.producer().send(switch (type) {
                    case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), "m", Duration.ofMillis(1));
                    case PRIORITY -> OutgoingMessage.priority(topic.name(), "m", 100);
                    case FIXED_TIME ->
                            OutgoingMessage.fixedTime(topic.name(), "m", Instant.ofEpochMilli(redisTimeMs()));
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() >= 2);
            } finally {
                container.stop();
            }
        }
        // a retry is due from the whole millisecond of the Redis clock its backoff ends in
        assertThat(Duration.ofNanos(attempts.get(1) - attempts.get(0))).as("from the failed attempt to the retry")
                .isGreaterThanOrEqualTo(BACKOFF.minusMillis(1));
    }
}
