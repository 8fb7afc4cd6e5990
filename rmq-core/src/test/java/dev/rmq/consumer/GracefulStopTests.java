package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class GracefulStopTests extends StandaloneRedisTest {

    private RmqClient rmq;

    @BeforeEach
    void client() {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).leaseTimeout(Duration.ofSeconds(30)).build())
                .build();
        for (int i = 0; i < 10; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "w" + i, 100 - i).withKey("m" + i));
        }
    }

    private RmqConsumerContainer<String> slowContainer(List<String> done) {
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class, m -> {
            // each message takes 100 ms of work: a 150 ms stop timeout must run out in the middle of the batch
            Thread.sleep(100);
            done.add(m.key() + "#" + m.attempt());
            return ConsumeResult.success();
        }).batchSize(10).build();
        container.start();
        return container;
    }

    @Test
    void stopFinishesAndCommitsTheBatchInFlightWithinTheTimeout() {
        List<String> done = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class, m -> {
            started.countDown();
            // the batch stays in flight until the stop has begun
            if (!release.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the handler finish");
            }
            done.add(m.key());
            return ConsumeResult.success();
        }).batchSize(10).build();
        container.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> container.stop(Duration.ofSeconds(10)));
        await().atMost(Duration.ofSeconds(5)).until(() -> !container.isRunning());
        assertThat(done).isEmpty();
        release.countDown();
        stopping.join();

        assertThat(done).hasSize(10);
        assertThat(redis.command("ZCARD", "rmq:prepare{jobs_0}")).isEqualTo(0L);
        assertThat(redis.command("ZCARD", "rmq:{jobs_0}")).isEqualTo(0L);
    }

    @Test
    void stopReleasesWhatItCouldNotStartInTimeWithoutCountingAnAttempt() {
        List<String> done = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = slowContainer(done);
        await().atMost(Duration.ofSeconds(5)).until(() -> !done.isEmpty());

        container.stop(Duration.ofMillis(150));
        int finished = done.size();
        assertThat(finished).isBetween(1, 9);
        assertThat(redis.command("ZCARD", "rmq:prepare{jobs_0}")).isEqualTo(0L);
        assertThat(redis.command("ZCARD", "rmq:{jobs_0}")).isEqualTo((long) (10 - finished));

        List<String> after = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> next = slowContainer(after);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> after.size() == 10 - finished);
            assertThat(after).allSatisfy(s -> assertThat(s).endsWith("#1"));
        } finally {
            next.stop();
        }
    }

    @Test
    void aStoppedContainerCanStartAgainAndStartingTwiceIsHarmless() {
        List<String> done = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = slowContainer(done);
        container.start();
        container.stop();
        container.stop();
        container.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 10);
            assertThat(container.ownedSlots()).containsExactly(0);
        } finally {
            container.stop();
        }
    }
}
