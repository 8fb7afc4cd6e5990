package dev.rmq.pull;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Deliveries settled and extended by their references through a puller other than the one that handed them out,
 * as two servers behind one load balancer do: in two clients, as in two processes, on one Redis.
 */
class SettleByReferenceTests extends StandaloneRedisTest {

    private static final Duration LEASE = Duration.ofSeconds(20);
    private static final TopicDefinition JOBS = TopicDefinition.builder("ref-jobs", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(LEASE).backoff(BackoffPolicy.fixed(Duration.ofMinutes(5))).build();
    private static final TopicDefinition SHORT = TopicDefinition.builder("ref-short", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(Duration.ofMillis(300)).build();
    private static final TopicDefinition GAUGES = TopicDefinition.builder("ref-gauges", TopicType.PRIORITY)
            .slotAmount(1).delivery(DeliveryGuarantee.AT_MOST_ONCE).build();

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /** A puller of its own client, as a server of its own would have. */
    private RmqPuller<String> server(String topic) {
        RmqClient client = RmqClient.builder(redisson).topics(List.of(JOBS, SHORT, GAUGES)).build();
        closing.add(client);
        RmqPuller<String> puller = client.puller(String.class).topics(topic).build();
        closing.add(puller);
        puller.start();
        return puller;
    }

    private RmqClient producer() {
        RmqClient client = RmqClient.builder(redisson).topics(List.of(JOBS, SHORT, GAUGES)).build();
        closing.add(client);
        return client;
    }


    @Test
    void anotherPullerAcksADeliveryByItsReferenceAndTheHolderFreesItsSlotAtOnce() {
        RmqPuller<String> a = server(JOBS.name());
        RmqPuller<String> b = server(JOBS.name());
        RmqClient producer = producer();
        producer.producer().send(OutgoingMessage.priority(JOBS.name(), "first", 50).withKey("k1"));
        producer.producer().send(OutgoingMessage.priority(JOBS.name(), "second", 40).withKey("k2"));

        PulledMessage<String> held = Fixtures.pollOne(a);
        assertThat(held.key()).isEqualTo("k1");
        assertThat(b.settle(held.ref(), Settlement.ACK, null)).isEqualTo(AckOutcome.COMMITTED);

        // the slot's next message comes long before the first lease would have run out
        long start = System.nanoTime();
        PulledMessage<String> next = Fixtures.pollOne(a);
        assertThat(next.key()).isEqualTo("k2");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LEASE.dividedBy(2));
        assertThat(held.isSettled()).as("the holder learned of the ending").isTrue();
        assertThatIllegalStateException().isThrownBy(held::ack).withMessageContaining("already ended");

        assertThatThrownBy(() -> b.settle(held.ref(), Settlement.ACK, null))
                .as("a second settle of one delivery").isInstanceOf(LeaseExpiredException.class)
                .hasMessageContaining("no delivery holds the lease");
        assertThat(a.settle(next.ref(), Settlement.ACK, null)).as("its own, by reference").isEqualTo(AckOutcome.COMMITTED);
        assertThat(producer.inspector().totals(JOBS.name()).backlog()).isZero();
    }

    @Test
    void anExtensionByReferenceGivesTheNewReferenceAndTheOldOneNoLongerSettles() {
        RmqPuller<String> a = server(JOBS.name());
        RmqPuller<String> b = server(JOBS.name());
        producer().producer().send(OutgoingMessage.priority(JOBS.name(), "x", 50).withKey("k"));
        PulledMessage<String> held = Fixtures.pollOne(a);
        DeliveryRef first = held.ref();

        DeliveryRef extended = b.extend(first, Duration.ofMinutes(2));

        assertThat(extended.lease()).isGreaterThan(first.lease());
        assertThat(extended.leaseDeadline()).isAfter(first.leaseDeadline().plus(Duration.ofSeconds(60)));
        await().atMost(Duration.ofSeconds(5)).until(() -> held.ref().equals(extended));
        assertThatThrownBy(() -> b.settle(first, Settlement.ACK, null)).isInstanceOf(LeaseExpiredException.class);
        assertThat(b.settle(extended, Settlement.ACK, null)).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void failuresAndReleasesByReferenceDoWhatTheHandleWould() {
        RmqPuller<String> a = server(JOBS.name());
        RmqPuller<String> b = server(JOBS.name());
        RmqClient producer = producer();
        producer.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 50).withKey("k"));

        PulledMessage<String> first = Fixtures.pollOne(a);
        assertThat(b.settle(first.ref(), Settlement.RELEASE, null)).isEqualTo(AckOutcome.RELEASED);
        PulledMessage<String> again = Fixtures.pollOne(a);
        assertThat(again.attempt()).as("a release is not an attempt").isEqualTo(1);

        assertThat(b.settle(again.ref(), Settlement.RETRY, "downstream refused")).isEqualTo(AckOutcome.RETRY);
        var stored = producer.producer().get(MessageRef.of(JOBS.name(), "k")).orElseThrow();
        assertThat(stored.attempts()).isEqualTo(1);
        assertThat(stored.lastError()).isEqualTo("downstream refused");

        assertThatIllegalArgumentException().isThrownBy(() -> b.settle(again.ref(), Settlement.DEAD, " "))
                .withMessageContaining("needs a reason");
        assertThatIllegalArgumentException().isThrownBy(() -> b.settle(new DeliveryRef("elsewhere", 0, "k", 1),
                Settlement.ACK, null)).withMessageContaining("not one of puller");
        assertThatIllegalArgumentException().isThrownBy(() -> b.extend(again.ref(), Duration.ZERO))
                .withMessageContaining("at least 1 ms");
    }

    @Test
    void aReferenceWhoseLeaseRanOutIsRefusedAndTheMessageComesBack() {
        RmqPuller<String> a = server(SHORT.name());
        RmqPuller<String> b = server(SHORT.name());
        producer().producer().send(OutgoingMessage.priority(SHORT.name(), "x", 50).withKey("k"));
        PulledMessage<String> held = Fixtures.pollOne(a);
        DeliveryRef ref = held.ref();

        PulledMessage<String> redelivered = Fixtures.pollOne(b);
        assertThat(redelivered.attempt()).as("recovered after its lease").isEqualTo(2);
        assertThatThrownBy(() -> b.settle(ref, Settlement.ACK, null)).isInstanceOf(LeaseExpiredException.class);
        assertThat(redelivered.ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void aReleaseRacingTheRecoveryOfItsLeaseGetsOneOfTwoConsistentAnswers() throws Exception {
        RmqPuller<String> holder = server(SHORT.name());
        RmqPuller<String> other = server(SHORT.name());
        RmqClient producer = producer();
        Map<AckOutcome, Integer> tally = new EnumMap<>(AckOutcome.class);
        int expiredFirst = 0;
        ExecutorService releasing = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 6; round++) {
                List<OutgoingMessage> batch = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    batch.add(OutgoingMessage.priority(SHORT.name(), "x", 50).withKey("r" + round + "-" + i));
                }
                producer.producer().sendAll(batch);
                List<PulledMessage<String>> held = holder.poll(8, Duration.ofSeconds(5));
                assertThat(held).hasSize(8);
                Map<String, Future<AckOutcome>> releases = new HashMap<>();
                for (int i = 0; i < held.size(); i++) {
                    DeliveryRef ref = held.get(i).ref();
                    // from 40 ms before the lease's end to 40 ms after, while the other puller recovers what ran out
                    long at = ref.leaseDeadline().toEpochMilli() - 40 + i * 10L;
                    releases.put(ref.key(), releasing.submit(() -> {
                        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() >= at);
                        try {
                            return other.settle(ref, Settlement.RELEASE, null);
                        } catch (LeaseExpiredException e) {
                            return AckOutcome.STALE;
                        }
                    }));
                }
                Map<String, PulledMessage<String>> again = new HashMap<>();
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    for (PulledMessage<String> next : other.poll(8, Duration.ofMillis(100))) {
                        again.put(next.key(), next);
                        next.ack();
                    }
                    return again.size() == 8;
                });
                for (Map.Entry<String, Future<AckOutcome>> release : releases.entrySet()) {
                    AckOutcome outcome = release.getValue().get();
                    PulledMessage<String> next = again.get(release.getKey());
                    tally.merge(outcome, 1, Integer::sum);
                    if (outcome == AckOutcome.RELEASED) {
                        assertThat(next.attempt()).as("released: the same attempt").isEqualTo(1);
                        assertThat(next.releases()).isEqualTo(1);
                    } else {
                        assertThat(outcome).isEqualTo(AckOutcome.STALE);
                        assertThat(next.attempt()).as("recovered first: a failed attempt").isEqualTo(2);
                        assertThat(next.releases()).isZero();
                        expiredFirst++;
                    }
                }
            }
        } finally {
            releasing.shutdownNow();
        }
        System.out.println("release against lease recovery, 48 races: " + tally + " (" + expiredFirst
                + " recovered first)");
    }

    @Test
    void aCancelledDeliveryAnswersItsCancelToASettleOrAnExtensionByReference() {
        RmqPuller<String> a = server(JOBS.name());
        RmqPuller<String> b = server(JOBS.name());
        RmqClient producer = producer();
        producer.producer().send(OutgoingMessage.priority(JOBS.name(), "x", 50).withKey("k"));
        PulledMessage<String> held = Fixtures.pollOne(a);
        assertThat(producer.producer().cancel(MessageRef.of(JOBS.name(), "k"))).isTrue();

        assertThatThrownBy(() -> b.extend(held.ref(), Duration.ofMinutes(1))).isInstanceOf(MessageCancelledException.class);
        assertThat(b.settle(held.ref(), Settlement.ACK, null)).isEqualTo(AckOutcome.CANCELLED);
    }

    @Test
    void anAtMostOnceDeliveryHasNoReference() {
        RmqPuller<String> a = server(GAUGES.name());
        producer().producer().send(OutgoingMessage.priority(GAUGES.name(), "x", 50).withKey("k"));
        PulledMessage<String> taken = Fixtures.pollOne(a);
        assertThatIllegalStateException().isThrownBy(taken::ref).withMessageContaining("holds no lease");
        assertThatIllegalArgumentException().isThrownBy(() -> a.settle(new DeliveryRef(GAUGES.name(), 0, "k", 1),
                Settlement.ACK, null)).withMessageContaining("at most once");
    }
}
