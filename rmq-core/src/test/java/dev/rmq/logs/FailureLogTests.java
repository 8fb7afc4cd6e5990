package dev.rmq.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What a failing listener leaves in the logs: a line per failed delivery, with what happens next, rate-limited. */
class FailureLogTests extends StandaloneRedisTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(2)
            .maxRetries(1).backoff(BackoffPolicy.fixed(Duration.ofMillis(200))).build();

    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();
    private CapturedLogs failures;
    private RmqClient rmq;

    @BeforeEach
    void setUp() {
        failures = new CapturedLogs("dev.rmq.failures");
        rmq = RmqClient.builder(redisson).topic(JOBS).build();
    }

    @AfterEach
    void tearDown() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        failures.close();
    }

    private void start(RmqHandler<String> handler, RmqErrorHandler errorHandler) {
        RmqConsumerContainer<String> container = rmq.container(JOBS.name(), String.class, handler)
                .settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(100))).errorHandler(errorHandler)
                .build();
        containers.add(container);
        container.start();
    }

    @Test
    void aThrowingHandlerIsLoggedOncePerFailedDeliveryWithWhatComesNextAndTheStackTrace() {
        start(message -> {
            throw new IllegalStateException("the warehouse is closed");
        }, RmqErrorHandler.DEFAULT);

        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 100).withKey("order-7"));

        // The line about the move is written once Redis has confirmed it, so it can follow the dead count.
        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count(JOBS.name()) == 1
                && failures.events().size() >= 2);
        List<ILoggingEvent> events = failures.events();
        assertThat(events).hasSize(2).allSatisfy(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(e.getThrowableProxy()).as("the stack trace").isNotNull();
            assertThat(e.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
        });
        assertThat(events.get(0).getFormattedMessage()).isEqualTo("topic jobs: message 'order-7' (slot "
                + JOBS.slotOf("order-7") + ", attempt 1) failed; attempt 2 of 2 comes in about 200 ms:"
                + " java.lang.IllegalStateException: the warehouse is closed");
        assertThat(events.get(1).getFormattedMessage()).contains("attempt 2) failed;")
                .contains("moved to the dead queue, its 1 retries spent");
    }

    @Test
    void aFloodOfOneErrorWritesOneLineWhileEveryFailureIsStillCounted() {
        AtomicInteger calls = new AtomicInteger();
        start(message -> {
            calls.incrementAndGet();
            throw new IllegalArgumentException("poison");
        }, (message, error) -> ConsumeResult.dead("poison"));
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(OutgoingMessage.priority(JOBS.name(), "x", 100).withKey("p" + i));
        }
        long start = System.nanoTime();
        rmq.producer().sendAll(batch);

        await().atMost(Duration.ofSeconds(20)).until(() -> rmq.deadQueue().count(JOBS.name()) == 200);

        long windows = 1 + (System.nanoTime() - start) / 10_000_000_000L;
        assertThat(calls.get()).isEqualTo(200);
        assertThat(failures.lines()).as("at most 5 lines of one kind every 10 s").hasSizeBetween(5, (int) (5 * windows));
    }

    @Test
    void theErrorHandlerDecidesAndExceptionsNotWorthRetryingGoStraightToDead() {
        AtomicInteger calls = new AtomicInteger();
        start(message -> {
            calls.incrementAndGet();
            throw message.key().equals("unreadable") ? new PayloadCodecException("not an order", null)
                    : new UnsupportedOperationException("never");
        }, RmqErrorHandler.retryingExcept(List.of(PayloadCodecException.class, UnsupportedOperationException.class)));

        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 100).withKey("unreadable"));
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 100).withKey("unsupported"));

        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count(JOBS.name()) == 2
                && failures.lines().size() >= 2);
        assertThat(calls.get()).as("no retry").isEqualTo(2);
        assertThat(failures.lines()).anyMatch(line -> line.contains("'unreadable'") && line.contains("moved to the dead"
                + " queue: not retryable: dev.rmq.codec.PayloadCodecException: not an order"));
    }

    @Test
    void requeuesAndPurgesOfTheDeadQueueAreLoggedAtInfo() {
        try (CapturedLogs deadQueue = new CapturedLogs("dev.rmq.internal.dead.RedisDeadQueue")) {
            start(message -> ConsumeResult.dead("no"), RmqErrorHandler.DEFAULT);
            rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 100).withKey("a"));
            await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count(JOBS.name()) == 1);
            containers.forEach(c -> c.stop(Duration.ofSeconds(5)));

            rmq.deadQueue().requeueAll(JOBS.name());
            rmq.deadQueue().purge(JOBS.name());

            assertThat(deadQueue.lines()).containsExactly("INFO topic jobs: 1 dead message(s) requeued");
        }
    }
}
