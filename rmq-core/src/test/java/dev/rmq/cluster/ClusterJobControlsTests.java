package dev.rmq.cluster;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicBuilder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/** Every job control on the 3-master Cluster, with the topic's slots spread over all masters. */
class ClusterJobControlsTests extends ClusterFixture {

    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();

    @AfterEach
    void stopContainers() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
    }

    private static TopicDefinition fresh(TopicBuilder builder) {
        TopicDefinition topic = builder.slotAmount(SLOTS).build();
        deleteSlotKeys(topic);
        assertSlotsSpreadOverAllMasters(topic);
        return topic;
    }

    private <T> RmqConsumerContainer<T> start(RmqClient rmq, String topic, Class<T> type, RmqHandler<T> handler) {
        RmqConsumerContainer<T> container = rmq.container(topic, type, handler)
                .settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200))).build();
        containers.add(container);
        container.start();
        return container;
    }

    /** Slot bases that route to slots on each of the three masters. */
    private static List<String> basesOnEveryMaster(TopicDefinition topic) {
        List<String> bases = new ArrayList<>();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; masters.size() < 3; i++) {
            String basis = "basis-" + i;
            int port = masterOf(new KeyLayout("").slot(topic.name(), topic.slotOf(basis))).port();
            if (masters.add(port)) {
                bases.add(basis);
            }
        }
        return bases;
    }

    @Test
    void aClearEmptiesEverySlotOnEveryMasterAndLeavesTheDeliveryInFlight() {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-clear", TopicType.PRIORITY));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 96; i++) {
            batch.add(OutgoingMessage.priority(topic.name(), "m" + i, 50).withKey("k" + i));
        }
        rmq.producer().sendAll(batch);
        try (var puller = rmq.puller(String.class).topics(topic.name()).build()) {
            puller.start();
            var held = puller.poll(1, PATIENCE);
            assertThat(held).hasSize(1);

            assertThat(rmq.admin().clear(topic.name()).waiting()).isEqualTo(95);

            var counts = rmq.inspector().counts(topic.name()).total();
            assertThat(counts.waiting()).isZero();
            assertThat(counts.inFlight()).isEqualTo(1);
            assertThat(held.get(0).ack()).isEqualTo(dev.rmq.consumer.AckOutcome.COMMITTED);
        }
    }

    @Test
    void expiredMessagesNeverReachAHandlerOnAnyMaster() throws Exception {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-ttl", TopicType.PRIORITY).ttl(Duration.ofMillis(200)));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(OutgoingMessage.priority(topic.name(), "stale-" + i, 50));
        }
        rmq.producer().sendAll(batch);
        // Read once the batch is stored: each message's time to live runs from its own send, and a batch spread over
        // three masters may take longer than the time to live to store, so the last ones expire at most 200 ms after this.
        long sentBy = redisTimeMs();
        rmq.producer().send(OutgoingMessage.priority(topic.name(), "fresh", 50).withTtl(Duration.ofMinutes(1)));
        // every master's clock judges the time to live; the nodes share this host's clock
        await().atMost(PATIENCE).until(() -> redisTimeMs() > sentBy + 200);
        List<String> handled = new CopyOnWriteArrayList<>();
        start(rmq, topic.name(), String.class, RmqHandler.committing(m -> handled.add(m.payload())));

        // a stale message that reached the handler fails the assertion below, not the wait
        await().atMost(PATIENCE).until(() -> handled.contains("fresh") && rmq.inspector().totals(topic.name()).backlog() == 0);
        assertThat(handled).containsExactly("fresh");
        assertThat(sizes(topic)).containsEntry("expiry", 0L).containsEntry("body", 0L);
    }

    @Test
    void eachRepeatedKeyRuleHoldsOnEveryMaster() {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-repeat", TopicType.RANGE_MERGE)
                .repeatedKey(RepeatedKey.KEEP_FIRST));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        Duration range = Duration.ofMinutes(10);
        for (String basis : basesOnEveryMaster(topic)) {
            OutgoingMessage first = OutgoingMessage.rangeMerge(topic.name(), "first", range).withKey(basis)
                    .withSlotBasis(basis);
            assertThat(rmq.producer().send(first).outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
            assertThat(rmq.producer().send(first.withKey(basis)).outcome()).isEqualTo(SendReceipt.Outcome.KEPT);

            String debounced = basis + "-debounced";
            OutgoingMessage moving = OutgoingMessage.rangeMerge(topic.name(), "d", range).withKey(debounced)
                    .withSlotBasis(basis).withRepeatedKey(RepeatedKey.DEBOUNCE);
            rmq.producer().send(moving);
            double due = rmq.producer().get(new MessageRef(topic.name(), debounced, basis)).orElseThrow().score();
            long sentAt = redisTimeMs();
            await().atMost(PATIENCE).until(() -> redisTimeMs() > sentAt + 5);
            assertThat(rmq.producer().send(moving).outcome()).isEqualTo(SendReceipt.Outcome.MERGED);
            assertThat(rmq.producer().get(new MessageRef(topic.name(), debounced, basis)).orElseThrow().score())
                    .isGreaterThan(due);

            OutgoingMessage throttled = OutgoingMessage.rangeMerge(topic.name(), "t", range).withKey(basis + "-t")
                    .withSlotBasis(basis).withRepeatedKey(RepeatedKey.throttle(Duration.ofMinutes(5)));
            assertThat(rmq.producer().send(throttled).outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
            assertThat(rmq.producer().cancel(new MessageRef(topic.name(), basis + "-t", basis))).isTrue();
            assertThat(rmq.producer().send(throttled).outcome()).isEqualTo(SendReceipt.Outcome.THROTTLED);
        }
        assertThat(rmq.inspector().totals(topic.name()).backlog()).isEqualTo(6);
    }

    @Test
    void theBacklogCapHoldsPerSlotOnEveryMasterAndABatchSaysWhatItRefused() {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-cap", TopicType.FIXED_TIME).maxBacklog(2 * SLOTS));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        Instant due = Instant.ofEpochMilli(redisTimeMs() + 600_000);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (String basis : basesOnEveryMaster(topic)) {
            for (int i = 0; i < 3; i++) {
                batch.add(OutgoingMessage.fixedTime(topic.name(), "v", due).withKey(basis + "-" + i).withSlotBasis(basis));
            }
        }

        BatchSendException refused = (BatchSendException) catchThrowable(() -> rmq.producer().sendAll(batch));

        assertThat(refused.outcomes()).extracting(SendOutcome::status).containsExactly(
                SendOutcome.Status.STORED, SendOutcome.Status.STORED, SendOutcome.Status.REFUSED,
                SendOutcome.Status.STORED, SendOutcome.Status.STORED, SendOutcome.Status.REFUSED,
                SendOutcome.Status.STORED, SendOutcome.Status.STORED, SendOutcome.Status.REFUSED);
        assertThat(refused.outcomes().get(2).error()).isInstanceOf(BacklogFullException.class);
        assertThat(rmq.inspector().totals(topic.name()).backlog()).isEqualTo(6);
    }

    @Test
    void atMostOnceMessagesLeaveEveryMasterWhenTakenAndRetryNowSkipsTheBackoff() {
        TopicDefinition ticks = fresh(TopicDefinition.builder("cluster-amo", TopicType.RANGE_MERGE)
                .delivery(DeliveryGuarantee.AT_MOST_ONCE));
        TopicDefinition jobs = fresh(TopicDefinition.builder("cluster-now", TopicType.PRIORITY).maxRetries(3)
                .backoff(BackoffPolicy.fixed(Duration.ofMinutes(1))));
        RmqClient rmq = RmqClient.builder(redisson).topic(ticks).topic(jobs).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(OutgoingMessage.rangeMerge(ticks.name(), "t" + i, Duration.ofMillis(10)));
            batch.add(OutgoingMessage.priority(jobs.name(), "j" + i, 50));
        }
        rmq.producer().sendAll(batch);
        ConcurrentLinkedQueue<String> ticked = new ConcurrentLinkedQueue<>();
        start(rmq, ticks.name(), String.class, m -> {
            ticked.add(m.payload());
            // every other one fails: at most once, it is gone all the same
            return ticked.size() % 2 == 0 ? ConsumeResult.success() : ConsumeResult.retry("lost");
        });
        ConcurrentLinkedQueue<String> attempts = new ConcurrentLinkedQueue<>();
        start(rmq, jobs.name(), String.class, m -> {
            attempts.add(m.payload() + "#" + m.attempt());
            return m.attempt() == 1 ? ConsumeResult.retryNow("at once") : ConsumeResult.success();
        });

        await().atMost(PATIENCE).until(() -> ticked.size() == 100 && attempts.size() == 200);
        assertThat(sizes(ticks)).containsEntry("store", 0L).containsEntry("prepare", 0L).containsEntry("inflight", 0L)
                .containsEntry("dead", 0L);
        assertThat(attempts).filteredOn(a -> a.endsWith("#2")).hasSize(100);
        await().atMost(PATIENCE).until(() -> sizes(jobs).get("prepare") == 0);
        assertThat(sizes(jobs)).containsEntry("body", 0L).containsEntry("dead", 0L);
    }

    @Test
    void delayedPriorityFifoAndLateFixedTimesWorkOnEveryMaster() throws Exception {
        TopicDefinition jobs = fresh(TopicDefinition.builder("cluster-fifo", TopicType.PRIORITY).fifo(true));
        TopicDefinition orders = fresh(TopicDefinition.builder("cluster-late", TopicType.FIXED_TIME));
        RmqClient rmq = RmqClient.builder(redisson).topic(jobs).topic(orders).build();
        List<String> bases = basesOnEveryMaster(jobs);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (String basis : bases) {
            batch.add(OutgoingMessage.priority(jobs.name(), basis + "-late", 99).withKey(basis + "-late").withSlotBasis(basis)
                    .withDelay(Duration.ofMillis(800)));
            for (int i = 0; i < 50; i++) {
                // keys in the reverse of the send order
                batch.add(OutgoingMessage.priority(jobs.name(), basis + "-" + i, 50).withKey(basis + "-" + (999 - i))
                        .withSlotBasis(basis));
            }
        }
        rmq.producer().sendAll(batch);
        assertThat(rmq.producer().get(ref(jobs.name(), bases.get(0) + "-late").withSlotBasis(bases.get(0))).orElseThrow()
                .state()).isEqualTo(MessageState.DELAYED);
        SendReceipt late = rmq.producer().send(OutgoingMessage.fixedTime(orders.name(), "o", Instant.ofEpochMilli(
                redisTimeMs() - 1_500)).withKey("o"));
        assertThat(late.lateBy()).isGreaterThanOrEqualTo(Duration.ofMillis(1_500));

        List<String> seen = new CopyOnWriteArrayList<>();
        start(rmq, jobs.name(), String.class, RmqHandler.committing(m -> seen.add(m.payload())));
        List<String> ordersSeen = new CopyOnWriteArrayList<>();
        start(rmq, orders.name(), String.class, RmqHandler.committing(m -> ordersSeen.add(m.payload())));

        await().atMost(PATIENCE).until(() -> seen.size() == 153 && ordersSeen.size() == 1);
        for (String basis : bases) {
            List<String> ofBasis = seen.stream().filter(p -> p.startsWith(basis + "-")).toList();
            assertThat(ofBasis.subList(0, 50)).as("slot of %s in send order", basis)
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50).mapToObj(i -> basis + "-" + i).toList());
            assertThat(ofBasis.get(50)).isEqualTo(basis + "-late");
        }
    }

    @Test
    void aPauseHoldsOnEveryMasterAndAResumeWakesEverySlot() throws Exception {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-pause", TopicType.PRIORITY));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        assertThat(rmq.admin().pause(topic.name()).paused()).isTrue();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(OutgoingMessage.priority(topic.name(), "m" + i, 50));
        }
        rmq.producer().sendAll(batch);
        List<String> handled = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class,
                RmqHandler.committing(m -> handled.add(m.payload()))).build();
        containers.add(container);
        container.start();
        await().during(Duration.ofMillis(1_500)).atMost(PATIENCE).untilAsserted(() -> assertThat(handled).isEmpty());

        long resumed = System.nanoTime();
        rmq.admin().resume(topic.name());
        await().atMost(PATIENCE).until(() -> handled.size() == 100);
        assertThat(Duration.ofNanos(System.nanoTime() - resumed)).isLessThan(Duration.ofSeconds(5));
        for (int slot = 0; slot < SLOTS; slot++) {
            String paused = new KeyLayout("").slot(topic.name(), slot).paused();
            assertThat(masterOf(new KeyLayout("").slot(topic.name(), slot)).command("EXISTS", paused)).isEqualTo(0L);
        }
    }

    @Test
    void theRateLimitHoldsForSlotsOnEveryMasterThroughOneBucket() throws Exception {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-rate", TopicType.PRIORITY).rateLimit(100));
        String bucket = new KeyLayout("").rateBucket(topic.name());
        cluster.masterForSlot(cluster.keySlot(bucket)).command("DEL", bucket);
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            batch.add(OutgoingMessage.priority(topic.name(), "m" + i, 50));
        }
        rmq.producer().sendAll(batch);
        ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, m -> {
            starts.add(System.nanoTime());
            return ConsumeResult.success();
        }).concurrency(3).build();
        containers.add(container);
        container.start();

        await().atMost(PATIENCE).until(() -> starts.size() >= 650);
        long first = starts.stream().mapToLong(Long::longValue).min().orElseThrow();
        long from = first + 500_000_000L;
        long inFiveSeconds = starts.stream().filter(at -> at >= from && at < from + 5_000_000_000L).count();
        assertThat(inFiveSeconds).isBetween(450L, 550L);
    }

    @Test
    void aSendToAKeyInFlightIsParkedOnItsMasterUntilTheDeliveryEnds() throws Exception {
        TopicDefinition topic = fresh(TopicDefinition.builder("cluster-parked", TopicType.FIXED_TIME));
        RmqClient rmq = RmqClient.builder(redisson).topic(topic).build();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> runs = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            start(rmq, topic.name(), String.class, m -> {
                runs.add(m.payload());
                if (m.payload().equals("v1")) {
                    started.countDown();
                    assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
                }
                return ConsumeResult.success();
            });
        }
        rmq.producer().send(OutgoingMessage.fixedTime(topic.name(), "v1", Instant.ofEpochMilli(redisTimeMs())).withKey("k"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        rmq.producer().send(OutgoingMessage.fixedTime(topic.name(), "v2", Instant.ofEpochMilli(redisTimeMs())).withKey("k"));
        await().atMost(PATIENCE).until(() -> rmq.producer().get(ref(topic.name(), "k")).orElseThrow().state()
                == MessageState.PARKED);
        release.countDown();

        await().atMost(PATIENCE).until(() -> runs.size() == 2);
        assertThat(runs).containsExactly("v1", "v2");
    }
}
