package dev.rmq.consumer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.DeadReason;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a handler or the application's codec throws outside its contract is the message's failure, not the
 * worker's: the worker goes on with its slots. An interrupt a handler leaves set is not a stop.
 */
class WorkerFaultsTests extends StandaloneRedisTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("faulty-jobs", TopicType.PRIORITY).slotAmount(1)
            .backoff(BackoffPolicy.fixed(Duration.ofMillis(50))).build();

    /** An {@link Error} of the application's own, as Kotlin's {@code TODO()} throws. */
    private static final class Unfinished extends Error {
        Unfinished() {
            super("not implemented yet");
        }
    }

    @Test
    void anErrorAHandlerThrowsFailsItsMessageWhichIsRetried() {
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topics(List.of(JOBS)).build());
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = closedAfterTest(rmq.container(JOBS.name(), String.class, m -> {
            seen.add(m.key() + "#" + m.attempt());
            if (m.attempt() == 1) {
                throw new Unfinished();
            }
            return ConsumeResult.success();
        }).build());
        container.start();
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "a", 100).withKey("a"));

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("a#2"));
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "b", 100).withKey("b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("b#2"));
        assertThat(seen).containsExactly("a#1", "a#2", "b#1", "b#2");
    }

    @Test
    void aCodecThatThrowsOutsideItsContractSendsTheMessageToDeadAndTheWorkerGoesOn() {
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topics(List.of(JOBS)).codec(new PoisonAware())
                .build());
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = closedAfterTest(rmq.container(JOBS.name(), String.class, m -> {
            seen.add(m.payload());
            return ConsumeResult.success();
        }).build());
        container.start();
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "poison", 100).withKey("poison"));
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "fine", 50).withKey("fine"));

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("fine"));
        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.deadQueue().count(JOBS.name()) == 1);
        DeadMessage dead = rmq.deadQueue().list(JOBS.name(), 0, 0, 10).get(0);
        assertThat(dead.key()).isEqualTo("poison");
        assertThat(dead.reason()).isEqualTo(DeadReason.UNDECODABLE);
        assertThat(dead.lastError()).contains("IllegalStateException", "a codec's own bug");
        assertThat(seen).containsExactly("fine");
    }

    @Test
    void anInterruptAHandlerLeavesOnTheWorkersThreadIsNotTakenForAStop() {
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topics(List.of(JOBS)).build());
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqAsyncHandler<String> handler = m -> {
            seen.add(m.key() + "#" + m.attempt());
            // as code that caught an InterruptedException and restored the flag would leave it
            Thread.currentThread().interrupt();
            return CompletableFuture.supplyAsync(ConsumeResult::success,
                    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        };
        RmqConsumerContainer<String> container = closedAfterTest(rmq.container(JOBS.name(), String.class)
                .asyncHandler(handler).settings(ConsumerSettings.DEFAULTS.withBatchSize(2)).build());
        container.start();
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(JOBS.name(), "a", 100).withKey("a"),
                OutgoingMessage.priority(JOBS.name(), "b", 50).withKey("b")));

        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.inspector().totals(JOBS.name()).backlog() == 0
                && rmq.inspector().totals(JOBS.name()).inFlight() == 0);
        assertThat(seen).as("each handled once, its pending result waited for").containsExactly("a#1", "b#1");
    }

    @Test
    void anInterruptAHandlerLeavesSetDoesNotReachTheNextHandlerOfItsBatch() {
        RmqClient rmq = closedAfterTest(RmqClient.builder(redisson).topics(List.of(JOBS)).build());
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = closedAfterTest(rmq.container(JOBS.name(), String.class, m -> {
            seen.add(m.key() + "#" + m.attempt());
            if (m.key().equals("a")) {
                // as code that caught an InterruptedException and restored the flag would leave it
                Thread.currentThread().interrupt();
            } else {
                // work that waits, as most does (a query, a call): it throws at once on an interrupt left set
                Thread.sleep(5);
            }
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withBatchSize(2)).build());
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(JOBS.name(), "a", 100).withKey("a"),
                OutgoingMessage.priority(JOBS.name(), "b", 50).withKey("b")));
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.inspector().totals(JOBS.name()).backlog() == 0
                && rmq.inspector().totals(JOBS.name()).inFlight() == 0);
        assertThat(seen).as("each handled once, in one batch").containsExactly("a#1", "b#1");
        assertThat(rmq.deadQueue().count(JOBS.name())).isZero();
    }

    /** JSON, except that it fails to read the payload "poison" with an exception its contract does not name. */
    private static final class PoisonAware implements PayloadCodec {

        private final JsonPayloadCodec json = new JsonPayloadCodec();

        @Override
        public byte[] encode(Object payload) {
            return json.encode(payload);
        }

        @Override
        public Object decode(byte[] bytes, Type type) {
            Object payload = json.decode(bytes, type);
            if ("poison".equals(payload)) {
                throw new IllegalStateException("a codec's own bug");
            }
            return payload;
        }
    }
}
