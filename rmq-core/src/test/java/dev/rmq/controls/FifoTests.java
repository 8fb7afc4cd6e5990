package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a FIFO topic, equals (one priority, or one due millisecond) are consumed in the order first sent. Keys are
 * chosen so that their order is the reverse of the send order, which a topic without FIFO follows.
 */
class FifoTests extends ControlsTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 2_500;

    /** When one send call ran, on this JVM's nano clock, and by which thread as its how-manyth send. */
    private record Sent(String key, int thread, int index, long startNanos, long endNanos) {
    }

    @Test
    void equalPrioritiesAreConsumedInTheOrderSentOver10000MessagesFromFourThreads() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).fifo(true).build());
        checkFifo(rmq, "jobs", key -> OutgoingMessage.priority("jobs", key, 50).withKey(keyOf(key)));
    }

    @Test
    void messagesDueInTheSameMillisecondAreConsumedInTheOrderSent() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1).fifo(true).build());
        Instant due = Instant.ofEpochMilli(redisTimeMs() + 5_000);
        checkFifo(rmq, "orders", key -> OutgoingMessage.fixedTime("orders", key, due).withKey(keyOf(key)));
    }

    @Test
    void rangeMergeMessagesWithOneRangeAreConsumedInTheOrderSent() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(1).fifo(true).build());
        checkFifo(rmq, "prices", key -> OutgoingMessage.rangeMerge("prices", key, Duration.ofSeconds(1)).withKey(keyOf(key)));
    }

    @Test
    void withoutFifoEqualsGoByKey() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).build());
        for (String key : List.of("a", "c", "b")) {
            rmq.producer().send(OutgoingMessage.priority("jobs", key, 50).withKey(key));
        }
        List<String> seen = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            seen.add(m.key());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 3);
        // the highest score first, equal scores from the highest member down
        assertThat(seen).containsExactly("c", "b", "a");
    }

    @Test
    void messagesSentWhileTheTopicKeptFifoAreStillDeliveredOnceItNoLongerDoes() throws Exception {
        RmqClient before = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).fifo(true).build());
        for (String key : List.of("a", "c", "b")) {
            before.producer().send(OutgoingMessage.priority("jobs", key, 50).withKey(key));
        }
        RmqClient after = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).build());
        List<String> seen = new CopyOnWriteArrayList<>();
        start(after, "jobs", String.class, m -> {
            seen.add(m.payload());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 3);
        assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void aSendOnceTheTopicNoLongerKeepsFifoMergesIntoTheMessageWaitingAtItsPlace() throws Exception {
        RmqClient before = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1).fifo(true)
                .build());
        long now = redisTimeMs();
        Instant first = Instant.ofEpochMilli(now + 1_000);
        Instant second = Instant.ofEpochMilli(now + 2_000);
        before.producer().send(OutgoingMessage.fixedTime("orders", "first", first).withKey("k"));
        RmqClient after = client(TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(1).build());
        after.producer().send(OutgoingMessage.fixedTime("orders", "second", second).withKey("k"));
        assertThat(after.inspector().totals("orders").backlog()).as("one message waits for the key").isEqualTo(1);

        List<String> seen = new CopyOnWriteArrayList<>();
        List<Long> at = new CopyOnWriteArrayList<>();
        start(after, "orders", String.class, m -> {
            at.add(redisTimeMs());
            seen.add(m.payload());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 1);
        assertThat(seen).containsExactly("second");
        assertThat(at.get(0)).as("the latest fixed time wins").isGreaterThanOrEqualTo(second.toEpochMilli());
        holdsFor(Duration.ofMillis(500), () -> assertThat(seen).hasSize(1));
    }

    @Test
    void priorityAndRangeMergeSendsOnceTheTopicNoLongerKeepsFifoMergeAsTheirTypeDictates() throws Exception {
        RmqClient before = client(
                TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).fifo(true).build(),
                TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(1).fifo(true).build());
        before.producer().send(OutgoingMessage.priority("jobs", "low", 50).withKey("k"));
        before.producer().send(OutgoingMessage.rangeMerge("prices", "old", Duration.ofMillis(500)).withKey("k"));
        RmqClient after = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).build(),
                TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(1).build());
        after.producer().send(OutgoingMessage.priority("jobs", "high", 80).withKey("k"));
        after.producer().send(OutgoingMessage.rangeMerge("prices", "new", Duration.ofSeconds(30)).withKey("k"));
        for (String topic : List.of("jobs", "prices")) {
            assertThat(after.inspector().totals(topic).backlog()).as("one message of %s waits for the key", topic)
                    .isEqualTo(1);
        }

        List<String> seen = new CopyOnWriteArrayList<>();
        start(after, "jobs", String.class, m -> {
            seen.add(m.payload() + "@" + m.priority().orElse(0));
            return ConsumeResult.success();
        });
        start(after, "prices", String.class, m -> {
            seen.add(m.payload());
            return ConsumeResult.success();
        });
        // the latest priority; and the first send's range, not the second's, which would end after the wait
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
        assertThat(seen).containsExactlyInAnyOrder("high@80", "new");
    }

    @Test
    void aMergeKeepsTheMessagesPlaceAmongEquals() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).fifo(true).build());
        for (String key : List.of("c", "b", "a")) {
            rmq.producer().send(OutgoingMessage.priority("jobs", key + "1", 50).withKey(key));
        }
        rmq.producer().send(OutgoingMessage.priority("jobs", "c2", 50).withKey("c"));
        // a merge to another priority moves it to that level, still at the place of its first send
        rmq.producer().send(OutgoingMessage.priority("jobs", "x", 80).withKey("x"));
        rmq.producer().send(OutgoingMessage.priority("jobs", "a2", 80).withKey("a"));
        List<String> seen = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, m -> {
            seen.add(m.payload());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
        assertThat(seen).containsExactly("a2", "x", "c2", "b1");
    }

    /** Keys whose order is the reverse of their number's. */
    private static String keyOf(String number) {
        return "k" + (10_000_000 - Integer.parseInt(number));
    }

    /** Sends the messages numbered 0..9999 from four threads, then consumes them and checks the order. */
    private void checkFifo(RmqClient rmq, String topic, Function<String, OutgoingMessage> messageOf) throws Exception {
        Map<String, Sent> sent = new ConcurrentHashMap<>();
        ExecutorService senders = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(senders.submit(() -> {
                    for (int i = 0; i < PER_THREAD; i++) {
                        String number = String.valueOf(thread * PER_THREAD + i);
                        long start = System.nanoTime();
                        rmq.producer().send(messageOf.apply(number));
                        sent.put(keyOf(number), new Sent(keyOf(number), thread, i, start, System.nanoTime()));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            senders.shutdown();
        }
        List<String> consumed = new CopyOnWriteArrayList<>();
        start(rmq, topic, String.class, m -> {
            consumed.add(m.key());
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withBatchSize(64).withIdlePoll(Duration.ofMillis(100)));
        await().atMost(Duration.ofSeconds(60)).until(() -> consumed.size() == THREADS * PER_THREAD);

        // within each thread, exactly the order of its sends
        int[] next = new int[THREADS];
        for (String key : consumed) {
            Sent s = sent.get(key);
            assertThat(s.index()).as("thread %d's next message", s.thread()).isEqualTo(next[s.thread()]++);
        }
        // across threads: a message whose send had returned before another's began is consumed before it
        long earliestEndAfter = Long.MAX_VALUE;
        for (int i = consumed.size() - 1; i >= 0; i--) {
            Sent s = sent.get(consumed.get(i));
            assertThat(earliestEndAfter).as("a send that ended before %s began, yet consumed after it", s.key())
                    .isGreaterThanOrEqualTo(s.startNanos());
            earliestEndAfter = Math.min(earliestEndAfter, s.endNanos());
        }
    }
}
