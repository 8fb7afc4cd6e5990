package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.internal.redis.Futures;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A cancel of a message in flight: the delivery is gone from Redis at once, its holder learns of it when it asks,
 * extends or ends it, and a cancel racing an ending gives one of two consistent answers.
 */
class CancelInFlightTests extends ControlsTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(Duration.ofSeconds(1)).build();
    private static final TopicDefinition MANY = TopicDefinition.builder("many", TopicType.PRIORITY).slotAmount(4)
            .build();

    private RmqClient rmq;
    private RmqPuller<String> puller;

    private RmqPuller<String> puller(String topic) {
        rmq = closedAfterTest(client(JOBS, MANY));
        puller = startPuller(rmq, topic);
        return puller;
    }

    private PulledMessage<String> pollOne() {
        List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(2), "jobs");
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    /** A message of key "k" pulled, then cancelled while it is held; returns the holder's handle. */
    private PulledMessage<String> heldThenCancelled() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey("k"));
        PulledMessage<String> held = pollOne();
        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k"))).isTrue();
        return held;
    }

    private long cancelMarks(String topic, int slot) {
        return (Long) redis.command("ZCARD", "rmq:cancelled{" + topic + "_" + slot + "}");
    }

    @Test
    void aCancelledDeliveryLeavesRedisAtOnceAndItsAckSaysSo() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey("k"));
        PulledMessage<String> held = pollOne();
        MessageRef ref = MessageRef.of("jobs", "k");

        assertThat(held.cancelled()).isFalse();
        assertThat(rmq.producer().cancel(ref)).isTrue();

        assertThat(rmq.producer().get(ref)).as("where the message is after the cancel").isEmpty();
        assertThat(rmq.inspector().counts("jobs").total().inFlight()).isZero();
        assertThat(held.cancelled()).as("what the holder learns when it asks").isTrue();
        assertThat(held.ack()).isEqualTo(AckOutcome.CANCELLED);
        assertThat(cancelMarks("jobs", 0)).as("the mark, once the holder knows").isZero();
        assertThat(rmq.producer().cancel(ref)).as("a second cancel").isFalse();
        // its lease of a second passes, and nothing comes back
        holdsFor(Duration.ofMillis(1500), () -> assertThat(puller.poll(1, Duration.ofMillis(100), "jobs")).isEmpty());
    }

    @Test
    void aBatchOfAcksOfOnePollEndsEachDeliveryThatStillHoldsItsLeaseAndNoOther() {
        puller("jobs");
        for (int i = 0; i < 10; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "p" + i, 50).withKey("k" + i));
        }
        List<PulledMessage<String>> got = puller.poll(10, Duration.ofSeconds(2), "jobs");
        assertThat(got).hasSize(10);
        // one delivery cancelled, and another's lease given to a newer delivery of its key, as a lease recovery and
        // a poll would: its ack quotes a lease it no longer holds
        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k3"))).isTrue();
        redis.command("ZADD", "rmq:prepare{jobs_0}", "1", "k5");

        List<AckOutcome> outcomes = puller.ackAll(got);

        for (int i = 0; i < got.size(); i++) {
            String key = got.get(i).key();
            assertThat(outcomes.get(i)).as(key).isEqualTo(key.equals("k3") ? AckOutcome.CANCELLED
                    : key.equals("k5") ? AckOutcome.STALE : AckOutcome.COMMITTED);
        }
        assertThat(redis.command("ZRANGE", "rmq:prepare{jobs_0}", "0", "-1")).as("the newer lease, untouched")
                .isEqualTo(List.of("k5"));
        assertThat(redis.command("HKEYS", "rmq:inflight{jobs_0}")).isEqualTo(List.of("k5"));
    }

    @Test
    void anExtensionOfACancelledDeliveryFailsAndEveryEndingChangesNothing() {
        puller("jobs");
        for (String key : List.of("a", "b", "c")) {
            rmq.producer().send(OutgoingMessage.priority("jobs", key, 50).withKey(key));
        }
        List<PulledMessage<String>> held = puller.poll(3, Duration.ofSeconds(2), "jobs");
        assertThat(held).hasSize(3);
        held.forEach(m -> assertThat(rmq.producer().cancel(MessageRef.of("jobs", m.key()))).isTrue());

        assertThatThrownBy(() -> held.get(0).extendLease(Duration.ofSeconds(5)))
                .isInstanceOf(MessageCancelledException.class)
                .hasMessageContaining("message '" + held.get(0).key() + "'").hasMessageContaining("was cancelled");
        assertThat(held.get(0).retry("failed")).isEqualTo(AckOutcome.CANCELLED);
        assertThat(held.get(1).dead("no use")).isEqualTo(AckOutcome.CANCELLED);
        assertThat(held.get(2).release()).isEqualTo(AckOutcome.CANCELLED);

        assertThat(rmq.deadQueue().count("jobs")).as("nothing buried").isZero();
        assertThat(rmq.inspector().counts("jobs").total().waiting()).as("nothing waits").isZero();
        assertThat(cancelMarks("jobs", 0)).isZero();
    }

    @Test
    void anExtensionOfACancelledDeliveryFailsAsCancelledAfterItsKeyWasDeliveredAgain() {
        PulledMessage<String> held = heldThenCancelled();
        RmqPuller<String> second = startPuller(closedAfterTest(client(JOBS, MANY)), "jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "again", 50).withKey("k"));
        List<PulledMessage<String>> again = second.poll(1, Duration.ofSeconds(2), "jobs");
        assertThat(again).extracting(PulledMessage::payload).containsExactly("again");

        // the key holds a lease again, another delivery's: this holder's was cancelled all the same
        assertThatThrownBy(() -> held.extendLease(Duration.ofSeconds(5))).isInstanceOf(MessageCancelledException.class);
        assertThat(held.ack()).isEqualTo(AckOutcome.CANCELLED);
        assertThat(again.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void aCancelRemovesTheNewerMessageWaitingBehindTheDeliveryToo() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "first", 50).withKey("k"));
        PulledMessage<String> held = pollOne();
        rmq.producer().send(OutgoingMessage.priority("jobs", "second", 50).withKey("k"));

        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k"))).isTrue();

        assertThat(held.ack()).isEqualTo(AckOutcome.CANCELLED);
        assertThat(puller.poll(1, Duration.ofMillis(300), "jobs")).as("the newer send of the key").isEmpty();
        // a send after the cancel is a new message
        rmq.producer().send(OutgoingMessage.priority("jobs", "third", 50).withKey("k"));
        PulledMessage<String> third = pollOne();
        assertThat(third.payload()).isEqualTo("third");
        assertThat(third.ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void aCancelRemovesTheCopiesOfTheKeyWaitingAndParkedBehindTheDelivery() {
        puller("jobs");
        RmqClient other = closedAfterTest(client(JOBS, MANY));
        RmqPuller<String> second = startPuller(other, "jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "first", 50).withKey("k"));
        PulledMessage<String> held = pollOne();
        // taken by the second puller while the key is in flight: parked behind the delivery
        rmq.producer().send(OutgoingMessage.priority("jobs", "second", 50).withKey("k"));
        assertThat(second.poll(1, Duration.ofMillis(300), "jobs")).isEmpty();
        assertThat(rmq.inspector().counts("jobs").total().parked()).isEqualTo(1);
        // and one more, waiting in the store beside the parked one
        rmq.producer().send(OutgoingMessage.priority("jobs", "third", 50).withKey("k"));

        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k"))).isTrue();

        assertThat(rmq.inspector().counts("jobs").total().parked()).isZero();
        assertThat(rmq.inspector().counts("jobs").total().waiting()).isZero();
        assertThat(held.ack()).isEqualTo(AckOutcome.CANCELLED);
        assertThat(second.poll(1, Duration.ofMillis(300), "jobs")).isEmpty();
    }

    @Test
    void aNewOwnerOfTheSlotWaitsForTheHandlerOfACancelledDelivery() {
        heldThenCancelled();

        // the lease is gone from prepare, but its handler may still run until it would have ended
        Duration holdOff = Futures.join(rmq.slotFencing().take(JOBS, 0, "b/1")).holdOff();
        assertThat(holdOff).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aCancelledDeliverySettledAfterItsLeaseStillSaysCancelled() {
        PulledMessage<String> held = heldThenCancelled();
        awaitRedisClockPast(redisTimeMs(), 1_100);

        assertThat(held.ack()).as("rather than that it will be delivered again").isEqualTo(AckOutcome.CANCELLED);
    }

    @Test
    void aMarkWhoseHolderNeverEndsGoesWithItsLease() {
        heldThenCancelled();
        assertThat(cancelMarks("jobs", 0)).isEqualTo(1);

        long cancelledAt = redisTimeMs();
        awaitRedisClockPast(cancelledAt, 1_100);
        // the next poll of the slot drops marks past their lease
        assertThat(puller.poll(1, Duration.ofMillis(100), "jobs")).isEmpty();
        assertThat(cancelMarks("jobs", 0)).isZero();
    }

    @Test
    void aHandlerCanAskWhetherItsMessageWasCancelledAndItsEndingIsCounted() throws Exception {
        rmq = closedAfterTest(client(JOBS, MANY));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        AtomicBoolean sawCancel = new AtomicBoolean();
        start(rmq, "jobs", String.class, (RmqMessage<String> message) -> {
            running.countDown();
            assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();
            sawCancel.set(message.cancelled());
            return ConsumeResult.success();
        });
        rmq.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey("k"));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k"))).isTrue();
        cancelled.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> count("rmq.ack.cancelled", "topic", "jobs") == 1);
        assertThat(sawCancel).isTrue();
        assertThat(rmq.producer().get(MessageRef.of("jobs", "k"))).isEmpty();
        assertThat(cancelMarks("jobs", 0)).isZero();
    }

    /**
     * A cancel and an ack of the same delivery, started together 200 times: Redis orders them, and the two answers
     * always agree on which came first.
     */
    @Test
    void aCancelRacingAnAckGivesOneOfTwoConsistentAnswers() throws Exception {
        puller("many");
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(OutgoingMessage.priority("many", "p" + i, 50).withKey("k" + i));
        }
        rmq.producer().sendAll(batch);
        List<PulledMessage<String>> held = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            held.addAll(puller.poll(200 - held.size(), Duration.ofMillis(200), "many"));
            return held.size() == 200;
        });
        int cancelFirst = 0;
        int ackFirst = 0;
        ExecutorService pair = Executors.newFixedThreadPool(2);
        try {
            for (PulledMessage<String> message : held) {
                CyclicBarrier start = new CyclicBarrier(2);
                CompletableFuture<Boolean> cancel = CompletableFuture.supplyAsync(() -> {
                    together(start);
                    return rmq.producer().cancel(MessageRef.of("many", message.key()));
                }, pair);
                CompletableFuture<AckOutcome> ack = CompletableFuture.supplyAsync(() -> {
                    together(start);
                    return message.ack();
                }, pair);
                if (cancel.get(10, TimeUnit.SECONDS)) {
                    assertThat(ack.get(10, TimeUnit.SECONDS)).as("the ack of %s after its cancel", message.key())
                            .isEqualTo(AckOutcome.CANCELLED);
                    cancelFirst++;
                } else {
                    assertThat(ack.get(10, TimeUnit.SECONDS)).as("the ack of %s before its cancel", message.key())
                            .isEqualTo(AckOutcome.COMMITTED);
                    ackFirst++;
                }
            }
        } finally {
            pair.shutdownNow();
        }
        log().info("cancel against ack, 200 races: the cancel came first {} times, the ack {}", cancelFirst, ackFirst);
        assertThat(rmq.inspector().counts("many").total().waiting()).isZero();
        assertThat(rmq.inspector().counts("many").total().inFlight()).isZero();
        for (int slot = 0; slot < 4; slot++) {
            assertThat(cancelMarks("many", slot)).isZero();
        }
    }

    private static void together(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static org.slf4j.Logger log() {
        return org.slf4j.LoggerFactory.getLogger(CancelInFlightTests.class);
    }
}
