package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.metrics.MicrometerRmqMetrics;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** What the job-control tests share: a client on the test's topics with real meters, and containers stopped after. */
abstract class ControlsTest extends StandaloneRedisTest {

    protected final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();

    /** Runs before the base class closes what the test registered ({@link #closedAfterTest}). */
    @AfterEach
    void stopContainers() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
    }

    /** A started puller of {@code topic}, closed after the test. */
    protected RmqPuller<String> startPuller(RmqClient rmq, String topic) {
        RmqPuller<String> puller = closedAfterTest(rmq.puller(String.class).topics(topic).build());
        puller.start();
        return puller;
    }

    protected RmqClient client(TopicDefinition... topics) {
        return RmqClient.builder(redisson).topics(List.of(topics)).metrics(new MicrometerRmqMetrics(meters)).build();
    }

    protected <T> RmqConsumerContainer<T> start(RmqClient rmq, String topic, Class<T> type, RmqHandler<T> handler) {
        return start(rmq, topic, type, handler, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)));
    }

    protected <T> RmqConsumerContainer<T> start(RmqClient rmq, String topic, Class<T> type, RmqHandler<T> handler,
                                                ConsumerSettings settings) {
        RmqConsumerContainer<T> container = rmq.container(topic, type, handler).settings(settings).build();
        containers.add(container);
        container.start();
        return container;
    }

    /**
     * Asserts that {@code assertion} holds now and keeps holding for {@code window}: how a test shows that
     * something does not happen (no further delivery, no retry), which no event can signal.
     */
    protected static void holdsFor(Duration window, ThrowingRunnable assertion) {
        await().during(window).atMost(window.plusSeconds(5)).untilAsserted(assertion);
    }

    /** Waits until the Redis clock, which judges times to live, is past {@code sinceMs} plus {@code ttlMs}. */
    protected void awaitRedisClockPast(long sinceMs, long ttlMs) {
        await().atMost(Duration.ofMillis(ttlMs).plusSeconds(5)).until(() -> redisTimeMs() > sinceMs + ttlMs);
    }

    /** A counter's count, 0 when it was never incremented. */
    protected double count(String name, String... tags) {
        Counter counter = meters.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }
}
