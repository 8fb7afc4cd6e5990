package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three applications, each with its own connection and container of two workers, share one topic's rate limit:
 * over ten seconds their deliveries together stay within 10 % of it, and waiting for a token is no busy polling. A
 * bucket that cannot be read is a failed poll, retried, not the end of a worker.
 */
class RateLimitTests extends ControlsTest {

    private static final Logger log = LoggerFactory.getLogger(RateLimitTests.class);
    private static final double RATE = 100;
    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(8)
            .rateLimit(RATE).build();

    private final Applications applications = new Applications(redis, JOBS,
            ConsumerSettings.DEFAULTS.withConcurrency(2).withBatchSize(16));
    private final Queue<Long> starts = applications.starts;

    @AfterEach
    void stopApplications() {
        applications.close();
    }

    private RmqClient application() {
        return applications.add(false);
    }

    @Test
    void deliveriesOfEveryConsumerTogetherStayWithinTenPercentOfTheLimitOverTenSeconds() throws Exception {
        RmqClient first = application();
        application();
        application();
        List<OutgoingMessage> backlog = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            backlog.add(OutgoingMessage.priority("jobs", "m" + i, 50));
        }
        first.producer().sendAll(backlog);
        long scriptCallsBefore = scriptCalls();
        applications.startAll();

        await().atMost(Duration.ofSeconds(20)).until(() -> starts.size() >= 1_250);
        long calls = scriptCalls() - scriptCallsBefore;

        long firstStart = starts.stream().mapToLong(Long::longValue).min().orElseThrow();
        long from = firstStart + 1_000_000_000L;
        long to = from + 10_000_000_000L;
        long inWindow = starts.stream().filter(at -> at >= from && at < to).count();
        log.info("{} deliveries in the 10 s window at a limit of {}/s; {} script calls for {} deliveries", inWindow,
                RATE, calls, starts.size());
        assertThat(inWindow).as("deliveries in ten seconds at %s per second", RATE)
                .isBetween((long) (RATE * 10 * 0.9), (long) (RATE * 10 * 1.1));
        // a consumer waiting for a token asks Redis when the next one is due, not in a loop
        assertThat(calls).as("script calls for %d deliveries", starts.size()).isLessThan(starts.size() * 2L);
    }

    @Test
    void aBucketThatCannotBeReadFailsThePollAndTheWorkerGoesOnOnceItCanBe() throws Exception {
        RmqClient rmq = application();
        String bucket = new KeyLayout(KeyLayout.DEFAULT_PREFIX, "").rateBucket(JOBS.name());
        // a value of another type: every read of the bucket fails with WRONGTYPE
        redisson.getBucket(bucket, StringCodec.INSTANCE).set("not a bucket");
        List<OutgoingMessage> messages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            messages.add(OutgoingMessage.priority("jobs", "m" + i, 50));
        }
        rmq.producer().sendAll(messages);
        // only the bucket's read runs HMGET here: a poll that fails on it takes nothing, so runs no prepare
        long readsBefore = commandCalls("hmget");
        applications.startAll();
        // the two workers' polls fail, back off and try again
        await().atMost(Duration.ofSeconds(10)).until(() -> commandCalls("hmget") - readsBefore >= 4);
        assertThat(starts).as("nothing is taken while no token can be had").isEmpty();

        redisson.getBucket(bucket).delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> starts.size() >= messages.size());
    }
}
