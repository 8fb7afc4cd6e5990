package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The lease keeper renews the leases of a batch in hand, and never takes back time a handler asked for. */
class LeaseKeeperTests extends StandaloneRedisTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    @Test
    void aRenewalNeverShortensALeaseTheHandlerExtended() throws InterruptedException {
        TopicDefinition topic = TopicDefinition.builder("long-work", TopicType.PRIORITY).slotAmount(1)
                .leaseTimeout(LEASE).build();
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topic(topic).build());
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(topic.name(), "a", 100).withKey("a"),
                OutgoingMessage.priority(topic.name(), "b", 50).withKey("b")));
        Map<String, Long> leaseLeftMs = new ConcurrentHashMap<>();
        RmqConsumerContainer<String> container = closedAfterTest(rmq.container(topic.name(), String.class)
                .batchHandler(messages -> {
                    for (RmqMessage<String> message : messages) {
                        message.extendLease(Duration.ofSeconds(20));
                    }
                    // long enough for the keeper to renew the batch's leases twice, every half lease
                    Thread.sleep(LEASE.toMillis() * 3 / 2);
                    for (RmqMessage<String> message : messages) {
                        StoredMessage stored = rmq.producer().get(MessageRef.of(topic.name(), message.key()))
                                .orElseThrow();
                        leaseLeftMs.put(message.key(), stored.leaseDeadline().orElseThrow().toEpochMilli()
                                - redisTimeMs());
                    }
                    return BatchResult.success();
                }).settings(ConsumerSettings.DEFAULTS.withBatchSize(2)).build());
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> leaseLeftMs.size() == 2);
        assertThat(leaseLeftMs).as("what the handler asked for, less the time it worked since")
                .allSatisfy((key, left) -> assertThat(left).as(key).isGreaterThan(15_000));
    }

    @Test
    void afterAStopThatAHandlerOutlivesTheRestOfItsBatchIsLeftToItsLeasesAsTheReportSays() throws InterruptedException {
        TopicDefinition topic = TopicDefinition.builder("hung", TopicType.PRIORITY).slotAmount(1)
                .leaseTimeout(LEASE).build();
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topic(topic).build());
        for (int i = 0; i < 5; i++) {
            rmq.producer().send(OutgoingMessage.priority(topic.name(), "m" + i, 100 - i).withKey("m" + i));
        }
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, message -> {
            started.countDown();
            // a handler that ignores the stop's interrupts, until the test lets it end
            while (true) {
                try {
                    release.await();
                    return ConsumeResult.success();
                } catch (InterruptedException ignored) {
                    // deaf to the stop
                }
            }
        }).settings(ConsumerSettings.DEFAULTS.withBatchSize(5)).build();
        container.start();
        try {
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            StopReport report = container.stop(Duration.ofSeconds(1));
            assertThat(report.deliveriesLeftToLeases()).isEqualTo(5);
            long stoppedMs = redisTimeMs();
            // two leases: a keeper still renewing would have moved every deadline past them by now
            Thread.sleep(LEASE.toMillis() * 2);
            for (int i = 1; i < 5; i++) {
                Optional<StoredMessage> stored = rmq.producer().get(MessageRef.of(topic.name(), "m" + i));
                assertThat(stored.flatMap(StoredMessage::leaseDeadline).map(Instant::toEpochMilli).orElse(0L))
                        .as("m" + i + ", never started").isLessThanOrEqualTo(stoppedMs + LEASE.toMillis());
            }
        } finally {
            release.countDown();
        }
    }
}
