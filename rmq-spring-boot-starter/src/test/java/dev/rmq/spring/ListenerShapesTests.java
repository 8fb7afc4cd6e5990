package dev.rmq.spring;

import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqBatchFailedException;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.annotation.RmqListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener shapes beyond one message at a time, against a real redis-server and ZooKeeper: batch listeners of
 * messages and of payloads, a listener returning a CompletableFuture, and one returning a Mono.
 */
@ExtendWith(RedisAndZooKeeper.class)
@SpringBootTest(classes = ListenerShapesTests.App.class, properties = {
        "rmq.topics.batches.type=PRIORITY",
        "rmq.topics.batches.slot-amount=1",
        "rmq.topics.batches.batch-size=50",
        "rmq.topics.batches.max-retries=1",
        "rmq.topics.batches.backoff.initial=200ms",
        "rmq.topics.batches.backoff.max=200ms",
        "rmq.topics.payloads.type=PRIORITY",
        "rmq.topics.payloads.slot-amount=1",
        "rmq.topics.futures.type=PRIORITY",
        "rmq.topics.futures.slot-amount=1",
        "rmq.topics.futures.lease-timeout=1s",
        "rmq.topics.monos.type=PRIORITY",
        "rmq.topics.monos.slot-amount=1",
        "rmq.topics.monos.max-retries=2",
        "rmq.topics.monos.backoff.initial=100ms",
        "rmq.topics.monos.backoff.max=100ms",
        "rmq.topics.nulls.type=PRIORITY",
        "rmq.topics.nulls.slot-amount=1",
        "rmq.listener.idle-poll=200ms"})
@DirtiesContext
class ListenerShapesTests {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Autowired
    RmqProducer producer;
    @Autowired
    RmqDeadQueue deadQueue;
    @Autowired
    Listeners listeners;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry properties) {
        RedisAndZooKeeper.connect(properties);
    }

    private void send(String topic, int count) {
        producer.sendAll(IntStream.range(0, count)
                .mapToObj(i -> OutgoingMessage.priority(topic, "job " + i, 1000 - i).withKey(String.format("m%02d", i)))
                .toList());
    }

    @Test
    void aBatchListenerNamesTheMessageThatFailed() {
        send("batches", 50);

        await().atMost(WAIT).until(() -> listeners.batches.stream().mapToInt(List::size).sum() == 81);
        List<String> first = listeners.batches.get(0);
        assertThat(first).hasSize(50).startsWith("m00#1").endsWith("m49#1");
        List<String> after = new ArrayList<>();
        listeners.batches.subList(1, listeners.batches.size()).forEach(after::addAll);
        assertThat(after.subList(0, 30)).allSatisfy(line -> assertThat(line).endsWith("#1"));
        assertThat(after.get(30)).isEqualTo("m19#2");
    }

    @Test
    void aBatchListenerMayTakeThePayloadsAlone() {
        send("payloads", 5);

        await().atMost(WAIT).until(() -> listeners.payloads.size() == 5);
        assertThat(listeners.payloads).containsExactly("job 0", "job 1", "job 2", "job 3", "job 4");
    }

    @Test
    void aFutureThatCompletesAfterTheLeaseIsCommittedOnce() {
        send("futures", 2);

        await().atMost(WAIT).until(() -> listeners.futures.size() == 2);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> listeners.futures.size() == 2);
        assertThat(listeners.futures).containsExactly("m00#1", "m01#1");
    }

    @Test
    void aMonoThatErrorsIsRetriedThenDead() {
        send("monos", 1);

        await().atMost(WAIT).until(() -> deadQueue.count("monos") == 1);
        assertThat(listeners.monos).containsExactly("m00#1", "m00#2", "m00#3");
        assertThat(deadQueue.list("monos", 0, 0, 1).get(0).lastError()).contains("the Mono said no");
    }

    @Test
    void aJsonNullPayloadInABatchOfPayloadsGoesDeadAndTheOthersAreHandled() {
        producer.sendAll(List.of(
                OutgoingMessage.priority("nulls", new Item("first"), 300).withKey("n0"),
                OutgoingMessage.priority("nulls", tools.jackson.databind.node.NullNode.getInstance(), 200).withKey("n1"),
                OutgoingMessage.priority("nulls", new Item("third"), 100).withKey("n2")));

        await().atMost(WAIT).until(() -> listeners.nulls.size() == 2 && deadQueue.count("nulls") == 1);
        assertThat(listeners.nulls).containsExactly(new Item("first"), new Item("third"));
        assertThat(deadQueue.list("nulls", 0, 0, 1).get(0).lastError())
                .contains("payload of message 'n1' is JSON null, which a List<T> batch listener cannot receive");
    }

    record Item(String name) {
    }

    static class Listeners {
        final List<List<String>> batches = new CopyOnWriteArrayList<>();
        final List<String> payloads = new CopyOnWriteArrayList<>();
        final List<String> futures = new CopyOnWriteArrayList<>();
        final List<String> monos = new CopyOnWriteArrayList<>();
        final List<Item> nulls = new CopyOnWriteArrayList<>();

        @RmqListener(topic = "nulls")
        void nulls(List<Item> payloads) {
            nulls.addAll(payloads);
        }

        @RmqListener(topic = "batches")
        void batch(List<RmqMessage<String>> messages) {
            batches.add(messages.stream().map(m -> m.key() + "#" + m.attempt()).toList());
            if (batches.size() == 1) {
                throw new RmqBatchFailedException(messages.get(19), new IllegalStateException("job 19 broke"));
            }
        }

        @RmqListener(topic = "payloads")
        BatchResult payloads(List<String> batch) {
            payloads.addAll(batch);
            return BatchResult.success();
        }

        @RmqListener(topic = "futures")
        CompletableFuture<ConsumeResult> future(RmqMessage<String> message) {
            return CompletableFuture.supplyAsync(() -> {
                futures.add(message.key() + "#" + message.attempt());
                return ConsumeResult.success();
            }, CompletableFuture.delayedExecutor(1_500, java.util.concurrent.TimeUnit.MILLISECONDS));
        }

        @RmqListener(topic = "monos")
        Mono<Void> mono(String payload, RmqMessage<String> message) {
            monos.add(message.key() + "#" + message.attempt());
            return Mono.delay(Duration.ofMillis(20)).then(Mono.error(new IllegalStateException("the Mono said no")));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }
}
