package dev.rmq.controls;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A send to a key whose delivery is in flight waits, parked, until that delivery ends, then counts as a new
 * message; two containers polling one slot (as without ZooKeeper) never run one key at once.
 */
class InFlightKeyTests extends ControlsTest {

    private final List<String> runs = new CopyOnWriteArrayList<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();

    private RmqClient jobs() {
        return client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1).maxRetries(3)
                .backoff(BackoffPolicy.fixed(Duration.ofMinutes(1))).build());
    }

    /** Two containers on the one slot; the first delivery of each key waits for {@code release}. */
    private void twoContainers(RmqClient rmq, CountDownLatch firstStarted, CountDownLatch release, boolean firstFails) {
        for (int i = 0; i < 2; i++) {
            start(rmq, "jobs", String.class, m -> {
                if (running.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    runs.add(m.payload() + "#" + m.attempt());
                    if (m.payload().equals("v1")) {
                        firstStarted.countDown();
                        assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
                        return firstFails ? ConsumeResult.retry("failed while v2 waited") : ConsumeResult.success();
                    }
                    return ConsumeResult.success();
                } finally {
                    running.decrementAndGet();
                }
            }, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(50)));
        }
    }

    @Test
    void aSendDuringTheDeliveryWaitsForItToEndThenIsDeliveredAsANewMessage() throws Exception {
        RmqClient rmq = jobs();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        twoContainers(rmq, started, release, false);
        rmq.producer().send(OutgoingMessage.priority("jobs", "v1", 50).withKey("k"));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "v2", 50).withKey("k")).merged()).isFalse();
        // both containers keep polling: one of them takes the new copy and parks it behind the delivery
        await().atMost(Duration.ofSeconds(5)).until(() ->
                rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow().state() == MessageState.PARKED);
        // a send to a parked key is added, and merges into the parked message when a poll takes it
        assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "v3", 70).withKey("k")).merged()).isFalse();
        holdsFor(Duration.ofMillis(500), () -> assertThat(runs).containsExactly("v1#1"));

        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 2);
        holdsFor(Duration.ofMillis(300), () -> assertThat(runs).containsExactly("v1#1", "v3#1"));
        assertThat(overlaps).hasValue(0);
        assertThat(count("rmq.ack.stale", "topic", "jobs")).as("the first delivery's ack went through").isZero();
        assertThat(rmq.inspector().totals("jobs").backlog()).isZero();
    }

    @Test
    void aDeliveryThatFailsWhileANewerSendWaitsGivesWayToIt() throws Exception {
        RmqClient rmq = jobs();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        twoContainers(rmq, started, release, true);
        rmq.producer().send(OutgoingMessage.priority("jobs", "v1", 50).withKey("k"));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        rmq.producer().send(OutgoingMessage.priority("jobs", "v2", 50).withKey("k"));
        await().atMost(Duration.ofSeconds(5)).until(() ->
                rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow().state() == MessageState.PARKED);

        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 2);
        // v1 is not retried: the newer send replaced it
        holdsFor(Duration.ofMillis(300), () -> assertThat(runs).containsExactly("v1#1", "v2#1"));
        assertThat(meters.get("rmq.retries").counter().count()).as("started at zero, and still there").isZero();
        assertThat(overlaps).hasValue(0);
    }

    @Test
    void oneWorkerPerSlotSeesTheSameThing() throws Exception {
        RmqClient rmq = jobs();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(rmq, "jobs", String.class, m -> {
            runs.add(m.payload() + "#" + m.attempt());
            if (m.payload().equals("v1")) {
                started.countDown();
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            }
            return ConsumeResult.success();
        });
        rmq.producer().send(OutgoingMessage.priority("jobs", "v1", 50).withKey("k"));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        rmq.producer().send(OutgoingMessage.priority("jobs", "v2", 50).withKey("k"));
        release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 2);
        assertThat(runs).containsExactly("v1#1", "v2#1");
        assertThat(count("rmq.ack.stale", "topic", "jobs")).isZero();
    }

    /**
     * A delivery ends before any poll takes the send made behind it after another was parked: the parked message
     * and the newer one merge, the newer content winning, as two sends of a waiting key do.
     */
    @Test
    void aSendBehindADeliveryWhoseKeyIsParkedWinsOverTheParkedContentWhenTheDeliveryEnds() throws Exception {
        RmqClient rmq = jobs();
        RmqPuller<String> holder = startPuller(rmq, "jobs");
        // a second puller of the one slot, as without ZooKeeper: its poll finds the key in flight and parks it
        RmqPuller<String> other = startPuller(rmq, "jobs");
        assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "v1", 50).withKey("k")).behindDelivery())
                .isFalse();
        PulledMessage<String> first = Fixtures.pollOne(holder);
        SendReceipt second = rmq.producer().send(OutgoingMessage.priority("jobs", "v2", 50).withKey("k"));
        assertThat(second.outcome()).isEqualTo(SendReceipt.Outcome.ADDED);
        assertThat(second.behindDelivery()).as("added while v1 was in flight").isTrue();
        assertThat(other.poll(1, Duration.ofMillis(300))).as("v2 is parked, not delivered").isEmpty();
        assertThat(rmq.producer().get(MessageRef.of("jobs", "k")).orElseThrow().state())
                .isEqualTo(MessageState.PARKED);
        SendReceipt third = rmq.producer().send(OutgoingMessage.priority("jobs", "v3", 60).withKey("k"));
        assertThat(third.behindDelivery()).isTrue();

        first.ack();
        PulledMessage<String> next = Fixtures.pollOne(holder);
        assertThat(next.payload()).as("the latest send's content").isEqualTo("v3");
        assertThat(next.attempt()).isEqualTo(1);
        next.ack();
        assertThat(holder.poll(1, Duration.ofMillis(300))).as("one message: v2 merged into v3").isEmpty();
        assertThat(rmq.inspector().totals("jobs").backlog()).isZero();
        assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "v4", 50).withKey("k")).behindDelivery())
                .as("nothing in flight now").isFalse();
    }

    /**
     * A range-merge send made behind a delivery, whose older send a poll parked, keeps its own due time through the
     * merge: its content is never delivered before its range has passed, as when a poll parks it once due.
     */
    @Test
    void aRangeMergeSendBehindAParkedOneIsNotDeliveredBeforeItsOwnRange() throws Exception {
        RmqClient rmq = client(TopicDefinition.builder("ranges", TopicType.RANGE_MERGE).slotAmount(1).build());
        RmqPuller<String> holder = startPuller(rmq, "ranges");
        RmqPuller<String> other = startPuller(rmq, "ranges");
        rmq.producer().send(OutgoingMessage.rangeMerge("ranges", "v1", Duration.ofMillis(1)).withKey("k"));
        PulledMessage<String> first = Fixtures.pollOne(holder);
        rmq.producer().send(OutgoingMessage.rangeMerge("ranges", "v2", Duration.ofMillis(1)).withKey("k"));
        assertThat(other.poll(1, Duration.ofMillis(300))).as("v2 is parked").isEmpty();
        assertThat(rmq.producer().send(OutgoingMessage.rangeMerge("ranges", "v3", Duration.ofSeconds(2)).withKey("k"))
                .behindDelivery()).isTrue();

        first.ack();
        assertThat(holder.poll(1, Duration.ofMillis(500))).as("v3's range has not passed").isEmpty();
        PulledMessage<String> next = Fixtures.pollOne(holder);
        assertThat(next.payload()).as("one message, with v3's content").isEqualTo("v3");
        next.ack();
        assertThat(holder.poll(1, Duration.ofMillis(300))).isEmpty();
    }

}
