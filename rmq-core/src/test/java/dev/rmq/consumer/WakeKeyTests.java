package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a send leaves in a slot's wake key, and when it publishes a wake-up. The key says what the slot's consumer
 * counts on: a planned poll, or the most urgent message it knows of. A wake-up leaves the message that woke it
 * there, so that a consumer reading the slot's head finds the key already saying enough, and a message more urgent
 * still wakes it again. No consumer runs here: each test writes the key as a consumer's poll would.
 */
class WakeKeyTests extends StandaloneRedisTest {

    private RmqClient rmq;

    @BeforeEach
    void client() {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("timed", TopicType.FIXED_TIME).slotAmount(1).build())
                .topic(TopicDefinition.builder("ranked", TopicType.PRIORITY).slotAmount(1).build())
                .build();
    }

    @AfterEach
    void close() {
        rmq.close();
    }

    /** Wake-ups published so far, by sends' scripts or anyone: Redis counts a script's commands too. */
    private static long published() {
        return commandCalls("publish");
    }

    /** As an idle consumer's poll leaves the key: its planned poll, a minute from now. */
    private void planPoll(String topic) {
        redis.command("SET", "rmq:wake{" + topic + "_0}", String.valueOf(redisTimeMs() + 60_000), "PX", "120000");
    }

    private Object wakeKey(String topic) {
        return redis.command("GET", "rmq:wake{" + topic + "_0}");
    }

    private void sendAt(String key, long dueMs) {
        rmq.producer().send(OutgoingMessage.fixedTime("timed", key, Instant.ofEpochMilli(dueMs)).withKey(key));
    }

    @Test
    void aFixedTimeDueBeforeThePlannedPollWakesTheConsumerAndStaysInTheKey() {
        planPoll("timed");
        long due = redisTimeMs() + 5_000;
        long before = published();
        sendAt("a", due);
        assertThat(published() - before).as("wake-ups").isEqualTo(1);
        assertThat(wakeKey("timed")).isEqualTo("d" + due);
        assertThat((Long) redis.command("PTTL", "rmq:wake{timed_0}")).as("no expiry: the next poll writes the key")
                .isEqualTo(-1L);

        sendAt("b", due + 1_000);
        assertThat(published() - before).as("wake-ups after a later message").isEqualTo(1);
        assertThat(wakeKey("timed")).isEqualTo("d" + due);

        sendAt("c", due - 1_000);
        assertThat(published() - before).as("wake-ups after an earlier one").isEqualTo(2);
        assertThat(wakeKey("timed")).isEqualTo("d" + (due - 1_000));
    }

    @Test
    void aPriorityMessageWakesTheConsumerAndStaysInTheKeyUntilAHigherOneComes() {
        planPoll("ranked");
        long before = published();
        rmq.producer().send(OutgoingMessage.priority("ranked", "p30", 30));
        assertThat(published() - before).as("wake-ups").isEqualTo(1);
        assertThat(wakeKey("ranked")).isEqualTo("p30");

        rmq.producer().send(OutgoingMessage.priority("ranked", "p20", 20));
        assertThat(published() - before).as("wake-ups after a lower priority").isEqualTo(1);

        rmq.producer().send(OutgoingMessage.priority("ranked", "p40", 40));
        assertThat(published() - before).as("wake-ups after a higher one").isEqualTo(2);
        assertThat(wakeKey("ranked")).isEqualTo("p40");
    }

    @Test
    void aDelayedPriorityMessageLeavesItsDueTimeAndAnyMessageWaitingNowWakesTheConsumerAgain() {
        planPoll("ranked");
        long before = published();
        long sentAt = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority("ranked", "later", 90).withDelay(Duration.ofSeconds(5)));
        assertThat(published() - before).as("wake-ups").isEqualTo(1);
        String left = (String) wakeKey("ranked");
        assertThat(left).startsWith("d");
        assertThat(Long.parseLong(left.substring(1))).as("the delayed message's due time")
                .isBetween(sentAt + 5_000, redisTimeMs() + 5_000);

        // visible at once, so more urgent than a message the consumer cannot take for 5 s, whatever its priority
        rmq.producer().send(OutgoingMessage.priority("ranked", "now", 20));
        assertThat(published() - before).as("wake-ups after a message waiting now").isEqualTo(2);
        assertThat(wakeKey("ranked")).isEqualTo("p20");

        rmq.producer().send(OutgoingMessage.priority("ranked", "higher", 21));
        assertThat(published() - before).as("wake-ups after a higher priority").isEqualTo(3);
        assertThat(wakeKey("ranked")).isEqualTo("p21");
    }
}
