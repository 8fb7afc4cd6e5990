package dev.rmq.metrics;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.observation.GuardedMetrics;
import dev.rmq.logs.CapturedLogs;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application's metrics are its own code: one that throws must not fail a send Redis stored, nor keep a message
 * that was taken from its handler. Its failure is logged, and the figure is lost.
 */
class FailingMetricsTests extends StandaloneRedisTest {

    /** Counts each call, then throws, as a meter registry in a bad state would. */
    private static final class ThrowingMetrics implements RmqMetrics {

        final AtomicInteger calls = new AtomicInteger();

        private void fail() {
            calls.incrementAndGet();
            throw new IllegalStateException("meter registry closed");
        }

        @Override
        public void sent(TopicDefinition topic, int messages, int merged, long nanos, @Nullable Throwable error) {
            fail();
        }

        @Override
        public void duplicate(TopicDefinition topic, SendReceipt.Outcome outcome) {
            fail();
        }

        @Override
        public void sentLate(TopicDefinition topic, long millis) {
            fail();
        }

        @Override
        public void consumed(TopicDefinition topic, ConsumeResult.Outcome outcome, long nanos) {
            fail();
        }

        @Override
        public void lateness(TopicDefinition topic, long millis) {
            fail();
        }

        @Override
        public void acknowledged(TopicDefinition topic, AckOutcome outcome) {
            fail();
        }

        @Override
        public void topicDefined(TopicDefinition topic) {
            fail();
        }
    }

    @Test
    void theGuardPassesOnEveryFigureOfTheInterface() throws NoSuchMethodException {
        // a figure added to RmqMetrics and not to the guard would reach the application's metrics never
        for (Method method : RmqMetrics.class.getMethods()) {
            if (!Modifier.isStatic(method.getModifiers())) {
                assertThat(GuardedMetrics.class.getMethod(method.getName(), method.getParameterTypes())
                        .getDeclaringClass()).as(method.getName()).isEqualTo(GuardedMetrics.class);
            }
        }
    }

    @Test
    void anEventListenerThatThrowsKeepsNoMessageFromItsHandlerAndIsLoggedOnce() {
        AtomicInteger events = new AtomicInteger();
        RmqEventListener throwing = event -> {
            events.incrementAndGet();
            throw new IllegalStateException("audit store down");
        };
        long started = System.nanoTime();
        try (CapturedLogs logs = new CapturedLogs(RmqEventListener.class.getName())) {
            RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).events(throwing)
                    .topic(TopicDefinition.builder("orders", TopicType.PRIORITY).maxRetries(0).build())
                    .build());
            for (String key : List.of("one", "two", "three")) {
                rmq.producer().send(OutgoingMessage.priority("orders", key, 100).withKey(key));
            }
            Map<String, Integer> handled = consumeAll(rmq, 3);

            assertThat(handled).containsOnlyKeys("one", "two", "three").allSatisfy((key, times) ->
                    assertThat(times).as(key).isEqualTo(1));
            assertThat(rmq.deadQueue().count("orders")).isZero();
            assertThat(events.get()).as("every event was offered").isGreaterThanOrEqualTo(6);
            List<String> lines = logs.lines();
            assertThat(lines).as("once every ten seconds, not once per event").hasSizeBetween(1, windows(started));
            assertThat(lines.get(0)).startsWith("WARN ").contains("audit store down", "the event is dropped");
        }
    }

    /** The ten-second windows of the log's rate limit since {@code startedNanos}: at most one line each. */
    private static int windows(long startedNanos) {
        return 1 + (int) ((System.nanoTime() - startedNanos) / 10_000_000_000L);
    }

    /** Consumes until {@code count} keys were handled and nothing is in flight; how often each key was handled. */
    private static Map<String, Integer> consumeAll(RmqClient rmq, int count) {
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        RmqConsumerContainer<String> container = rmq.container("orders", String.class, m -> {
            handled.merge(m.key(), 1, Integer::sum);
            return ConsumeResult.success();
        }).build();
        container.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == count
                    && rmq.inspector().totals("orders").inFlight() == 0);
        } finally {
            container.stop();
        }
        return handled;
    }

    @Test
    void metricsThatThrowFailNoSendAndKeepNoMessageFromItsHandlerAndAreLoggedOnce() {
        ThrowingMetrics metrics = new ThrowingMetrics();
        long started = System.nanoTime();
        try (CapturedLogs logs = new CapturedLogs(RmqMetrics.class.getName())) {
            RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).metrics(metrics)
                    .topic(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(2).maxRetries(0).build())
                    .build());
            Instant due = Instant.ofEpochMilli(redisTimeMs());
            rmq.producer().send(OutgoingMessage.fixedTime("orders", "one", due).withKey("one"));
            rmq.producer().sendAsync(OutgoingMessage.fixedTime("orders", "two", due).withKey("two"))
                    .toCompletableFuture().join();
            rmq.producer().sendAll(List.of(OutgoingMessage.fixedTime("orders", "three", due).withKey("three")));

            Map<String, Integer> handled = consumeAll(rmq, 3);

            assertThat(handled).containsOnlyKeys("one", "two", "three").allSatisfy((key, times) ->
                    assertThat(times).as(key).isEqualTo(1));
            assertThat(rmq.deadQueue().count("orders")).isZero();
            assertThat(rmq.inspector().totals("orders").backlog()).isZero();
            assertThat(metrics.calls.get()).as("every figure was offered").isGreaterThan(10);
            List<String> lines = logs.lines();
            assertThat(lines).as("once every ten seconds, not once per figure").hasSizeBetween(1, windows(started));
            assertThat(lines.get(0)).startsWith("WARN ").contains("ThrowingMetrics", "meter registry closed",
                    "the figure is dropped");
        }
    }
}
