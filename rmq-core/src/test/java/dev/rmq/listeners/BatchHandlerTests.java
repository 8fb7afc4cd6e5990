package dev.rmq.listeners;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqBatchFailedException;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class BatchHandlerTests extends StandaloneRedisTest {

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    /** A one-slot priority topic whose messages m00, m01, ... come in that order. */
    private void sendJobs(int count, Duration lease) {
        rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).leaseTimeout(lease)
                        .maxRetries(2).backoff(BackoffPolicy.fixed(Duration.ofMillis(300))).build())
                .build();
        rmq.producer().sendAll(IntStream.range(0, count)
                .mapToObj(i -> OutgoingMessage.priority("jobs", "job " + i, 1000 - i).withKey(String.format("m%02d", i)))
                .toList());
    }

    /** Messages waiting or in flight: those not committed, dead or dropped. */
    private long left() {
        var total = rmq.inspector().counts("jobs").total();
        return total.waiting() + total.retrying() + total.inFlight();
    }

    /** One line per delivery: key#attempt. */
    private static List<String> lines(List<? extends RmqMessage<?>> messages) {
        return messages.stream().map(m -> m.key() + "#" + m.attempt()).toList();
    }

    private static List<String> keys(int from, int to, int attempt) {
        return IntStream.range(from, to).mapToObj(i -> String.format("m%02d#%d", i, attempt)).toList();
    }

    @Test
    void theFailedMessageRetriesThoseBeforeItCommitAndThoseAfterItKeepTheirPlaceAndAttempt() {
        sendJobs(50, Duration.ofSeconds(30));
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    calls.add(lines(messages));
                    if (calls.size() == 1) {
                        throw new RmqBatchFailedException(19, new IllegalStateException("job 19 broke"));
                    }
                    return BatchResult.success();
                })
                .batchSize(50).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> calls.stream().mapToInt(List::size).sum() >= 51);
        await().atMost(Duration.ofSeconds(5)).until(() -> left() == 0);

        assertThat(calls.get(0)).isEqualTo(keys(0, 50, 1));
        List<String> after = new ArrayList<>();
        calls.subList(1, calls.size()).forEach(after::addAll);
        // the 30 released come back first, with their attempt unchanged; the failed one after its backoff, once more
        assertThat(after.subList(0, 30)).isEqualTo(keys(20, 50, 1));
        assertThat(after.subList(30, after.size())).containsExactly("m19#2");
        assertThat(rmq.deadQueue().count("jobs")).isZero();
    }

    @Test
    void eachMessageCanHaveItsOwnOutcome() {
        sendJobs(4, Duration.ofSeconds(30));
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    seen.addAll(lines(messages));
                    if (messages.size() < 4) {
                        return BatchResult.success();
                    }
                    return BatchResult.of(List.of(ConsumeResult.success(), ConsumeResult.retryNow("again"),
                            ConsumeResult.dead("hopeless"), ConsumeResult.success()));
                })
                .batchSize(10).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 5);
        await().atMost(Duration.ofSeconds(5)).until(() -> left() == 0);
        assertThat(seen).containsExactly("m00#1", "m01#1", "m02#1", "m03#1", "m01#2");
        assertThat(rmq.deadQueue().list("jobs", 0, 0, 10)).extracting(dead -> dead.key()).containsExactly("m02");
    }

    @Test
    void anyOtherExceptionFailsTheWholeBatch() {
        sendJobs(5, Duration.ofSeconds(30));
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    seen.addAll(lines(messages));
                    if (seen.size() == 5) {
                        throw new IllegalStateException("the whole batch broke");
                    }
                    return null;
                })
                .batchSize(10).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 10);
        await().atMost(Duration.ofSeconds(5)).until(() -> left() == 0);
        assertThat(seen.subList(5, 10)).isEqualTo(keys(0, 5, 2));
    }

    @Test
    void theLeasesOfABatchLastAsLongAsItsHandler() {
        // the handler runs for two and a half leases; a second container polls the same slot meanwhile: had the
        // leases run out, it would recover the messages and deliver them a second time
        sendJobs(10, Duration.ofSeconds(1));
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    seen.addAll(lines(messages));
                    Thread.sleep(2_500); // the batch's work, not a wait: it must outlast two leases
                    return BatchResult.success();
                })
                .batchSize(10).build();
        container.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> !seen.isEmpty());
        RmqConsumerContainer<String> rival = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    seen.addAll(lines(messages));
                    return BatchResult.success();
                })
                .settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(100))).build();
        rival.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> left() == 0);
        assertThat(seen).isEqualTo(keys(0, 10, 1));
    }

    @Test
    void aBatchResultOfTheWrongSizeRetriesTheBatch() {
        sendJobs(3, Duration.ofSeconds(30));
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    seen.addAll(lines(messages));
                    return seen.size() == 3 ? BatchResult.of(List.of(ConsumeResult.success())) : BatchResult.success();
                })
                .batchSize(10).build();
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 6);
        assertThat(seen.subList(3, 6)).isEqualTo(keys(0, 3, 2));
    }

    @Test
    void aStopThatCutsABatchShortKeepsWhatWasDoneAndHandsBackTheRest() {
        sendJobs(20, Duration.ofSeconds(30));
        List<String> done = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container("jobs", String.class)
                .batchHandler(messages -> {
                    for (int i = 0; i < messages.size(); i++) {
                        try {
                            Thread.sleep(100); // each message's work, not a wait: the stop's bound ends part-way
                        } catch (InterruptedException e) {
                            // the stop's interrupt: this one and those after it were not done
                            throw new RmqBatchFailedException(i, e);
                        }
                        done.add(messages.get(i).key());
                    }
                    return BatchResult.success();
                })
                .batchSize(20).build();
        container.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> done.size() >= 3);

        container.stop(Duration.ofMillis(400));

        int finished = done.size();
        assertThat(finished).isBetween(3, 19);
        // the done ones are committed; the one cut off and those after it wait again, without a further attempt
        assertThat(left()).isEqualTo(20 - finished);
        assertThat(rmq.inspector().peek("jobs", 0, 20)).extracting(m -> m.key() + "#" + m.attempts())
                .isEqualTo(IntStream.range(finished, 20).mapToObj(i -> String.format("m%02d#0", i)).toList());
    }
}
