package dev.rmq.spring;

import dev.rmq.RmqClient;
import dev.rmq.metrics.SlotStats;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the application stops the listeners gracefully: a message in flight is finished and committed,
 * and the wait keeps within {@code spring.lifecycle.timeout-per-shutdown-phase}.
 */
class RmqShutdownTests {

    private static RedisServer redis;
    private static RedissonClient redisson;
    private static RmqClient observer;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class, RmqRedisAutoConfiguration.class,
                    RmqAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.jobs.type=PRIORITY",
                    "rmq.topics.jobs.slot-amount=1")
            .withBean(BlockingListener.class);

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServers.newStandalone();
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address());
        redisson = Redisson.create(config);
        observer = RmqClient.builder(redisson).topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).build())
                .build();
    }

    @AfterAll
    static void stopRedis() {
        try {
            redisson.shutdown();
        } finally {
            redis.close();
        }
    }

    @BeforeEach
    void emptyRedis() {
        redis.command("FLUSHALL");
    }

    @Test
    void closingWaitsForTheMessageInFlightAndCommitsIt() {
        contextRunner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=20s").run(context -> {
            BlockingListener listener = context.getBean(BlockingListener.class);
            observer.producer().send(OutgoingMessage.priority("jobs", "work", 100));
            assertThat(listener.started.await(10, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !closing.isDone());
            listener.release.countDown();
            closing.get(20, TimeUnit.SECONDS);

            assertThat(listener.finished).isTrue();
            assertThat(observer.inspector().totals("jobs")).isEqualTo(new SlotStats(-1, 0, 0, 0, false));
        });
    }

    @Test
    void closingGivesUpWithinThePhaseTimeoutAndKeepsTheUnfinishedMessage() {
        contextRunner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=3s").run(context -> {
            BlockingListener listener = context.getBean(BlockingListener.class);
            observer.producer().send(OutgoingMessage.priority("jobs", "stuck", 100));
            assertThat(listener.started.await(10, TimeUnit.SECONDS)).isTrue();

            long start = System.nanoTime();
            context.close();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(tookMillis).isLessThan(3000 + 2500);
            assertThat(listener.finished).isFalse();
            SlotStats left = observer.inspector().totals("jobs");
            assertThat(left.backlog() + left.inFlight()).as("kept for a later delivery, not committed").isEqualTo(1);
        });
    }
}
