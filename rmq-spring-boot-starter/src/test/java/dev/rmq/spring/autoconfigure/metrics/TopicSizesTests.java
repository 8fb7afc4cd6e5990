package dev.rmq.spring.autoconfigure.metrics;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.spring.TestRedisson;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The size gauges read Redis at most once per time-to-live, and show NaN while Redis cannot be read. */
class TopicSizesTests {

    private static RedisServer redis;
    private static RedissonClient redisson;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServers.newStandalone();
        redisson = TestRedisson.impatient(redis.address(), 500);
    }

    @AfterAll
    static void stopRedis() {
        try {
            redisson.shutdown();
        } finally {
            redis.close();
        }
    }

    @Test
    void readsRedisAgainOnlyAfterTheTimeToLive() {
        RmqClient client = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("cached", TopicType.PRIORITY).slotAmount(4).build()).build();
        AtomicLong clock = new AtomicLong();
        TopicSizes sizes = new TopicSizes(client.inspector(), Duration.ofSeconds(5), clock::get);

        assertThat(sizes.backlog("cached")).isZero();
        client.producer().send(OutgoingMessage.priority("cached", "a", 100));
        clock.addAndGet(Duration.ofSeconds(4).toNanos());
        assertThat(sizes.backlog("cached")).as("still the cached reading").isZero();
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(sizes.backlog("cached")).isEqualTo(1);
        assertThat(sizes.inFlight("cached")).isZero();
        assertThat(sizes.dead("cached")).isZero();
    }

    @Test
    void showsNaNWhenRedisCannotBeRead() {
        RmqClient client = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("outage", TopicType.PRIORITY).slotAmount(1).build()).build();
        AtomicLong clock = new AtomicLong();
        TopicSizes sizes = new TopicSizes(client.inspector(), Duration.ofMillis(1), clock::get);
        assertThat(sizes.backlog("outage")).isZero();

        redis.stop();
        try {
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            assertThat(sizes.backlog("outage")).isNaN();
        } finally {
            redis.restart();
        }
    }
}
