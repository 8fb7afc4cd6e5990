package dev.rmq.listeners;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.StopReport;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class AsyncHandlerTests extends StandaloneRedisTest {

    private final ScheduledExecutorService later = Executors.newScheduledThreadPool(2);
    private RmqClient rmq;

    @AfterEach
    void close() {
        later.shutdownNow();
        if (rmq != null) {
            rmq.close();
        }
    }

    /** Sends {@code count} messages; returns how many slots they went to. */
    private long topic(int slots, Duration lease, int count) {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(slots).leaseTimeout(lease)
                        .maxRetries(2).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build())
                .build();
        return rmq.producer().sendAll(IntStream.range(0, count)
                .mapToObj(i -> OutgoingMessage.priority("jobs", "job " + i, 1000 - i).withKey(String.format("m%02d", i)))
                .toList()).stream().map(SendReceipt::slot).distinct().count();
    }

    private long left() {
        var total = rmq.inspector().counts("jobs").total();
        return total.waiting() + total.retrying() + total.inFlight();
    }

    /** A stage that completes on another thread after {@code millis}. */
    private <R> CompletableFuture<R> after(long millis, R value) {
        CompletableFuture<R> result = new CompletableFuture<>();
        later.schedule(() -> result.complete(value), millis, TimeUnit.MILLISECONDS);
        return result;
    }

    @Test
    void aResultThatCompletesAfterTheLeaseWouldHaveRunOutIsCommittedOnce() {
        // a second container polls the same slot meanwhile: had the leases of the pending message and of the rest
        // of its poll run out, it would recover them and deliver them a second time
        topic(1, Duration.ofSeconds(1), 3);
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .asyncHandler(m -> {
                    seen.add(m.key() + "#" + m.attempt());
                    return after(2_500, ConsumeResult.success());
                })
                .build();
        container.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> !seen.isEmpty());
        RmqConsumerContainer<String> rival = rmq.container("jobs", String.class)
                .asyncHandler(m -> {
                    seen.add(m.key() + "#" + m.attempt());
                    return CompletableFuture.completedFuture(ConsumeResult.success());
                })
                .settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(100))).build();
        rival.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> left() == 0);
        assertThat(seen).containsExactly("m00#1", "m01#1", "m02#1");
    }

    @Test
    void oneSlotsMessagesStillRunOneAfterAnotherInOrder() {
        topic(1, Duration.ofSeconds(30), 20);
        List<String> started = new CopyOnWriteArrayList<>();
        AtomicInteger pending = new AtomicInteger();
        AtomicInteger mostPending = new AtomicInteger();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .asyncHandler(m -> {
                    started.add(m.key());
                    mostPending.accumulateAndGet(pending.incrementAndGet(), Math::max);
                    return after(20, null).thenApply(ignored -> {
                        pending.decrementAndGet();
                        return ConsumeResult.success();
                    });
                })
                .batchSize(8).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> left() == 0);
        assertThat(mostPending).hasValue(1);
        assertThat(started).isEqualTo(IntStream.range(0, 20).mapToObj(i -> String.format("m%02d", i)).toList());
    }

    @Test
    void aResultThatFailsIsRetriedThenDead() {
        topic(1, Duration.ofSeconds(30), 1);
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .asyncHandler(m -> {
                    seen.add(m.key() + "#" + m.attempt());
                    return CompletableFuture.supplyAsync(() -> {
                        throw new IllegalStateException("downstream said no");
                    });
                })
                .build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count("jobs") == 1);
        assertThat(seen).containsExactly("m00#1", "m00#2", "m00#3");
        assertThat(rmq.deadQueue().list("jobs", 0, 0, 1).get(0).lastError()).contains("downstream said no");
    }

    @Test
    void aStopWaitsForPendingResultsOnlyUntilItsTimeoutThenHandsThemBack() {
        long slots = topic(16, Duration.ofSeconds(30), 40);
        assertThat(slots).isGreaterThanOrEqualTo(10);
        AtomicInteger pending = new AtomicInteger();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .asyncHandler(m -> {
                    pending.incrementAndGet();
                    return new CompletableFuture<>();
                })
                .concurrency(16).build();
        container.start();
        // one result pending in each slot that has messages, one slot per worker
        await().atMost(Duration.ofSeconds(10)).until(() -> pending.get() == slots);

        StopReport report = container.stop(Duration.ofSeconds(2));

        // the bound holds, give or take the scheduling of two cores
        assertThat(report.took()).isLessThan(Duration.ofMillis(3_000));
        var total = rmq.inspector().counts("jobs").total();
        assertThat(total.inFlight()).isZero();
        assertThat(total.waiting()).isEqualTo(40);
        // handed back without counting an attempt
        assertThat(rmq.inspector().peek("jobs", 0, 40)).allSatisfy(m -> assertThat(m.attempts()).isZero());
    }
}
