package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.events.RmqEvent;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class AtMostOnceTests extends ControlsTest {

    private RmqClient atMostOnce() {
        return client(TopicDefinition.builder("ticks", TopicType.PRIORITY).slotAmount(1)
                .delivery(DeliveryGuarantee.AT_MOST_ONCE).build());
    }

    @Test
    void aMessageLeavesRedisWhenTakenAndAFailedOneIsGoneCountedAndNeverRetried() throws Exception {
        RmqClient rmq = atMostOnce();
        rmq.producer().send(OutgoingMessage.priority("ticks", "fails", 90).withKey("fails"));
        rmq.producer().send(OutgoingMessage.priority("ticks", "throws", 80).withKey("throws"));
        rmq.producer().send(OutgoingMessage.priority("ticks", "ok", 70).withKey("ok"));
        List<String> handled = new CopyOnWriteArrayList<>();
        List<Long> inPrepareWhileHandling = new CopyOnWriteArrayList<>();
        start(rmq, "ticks", String.class, m -> {
            handled.add(m.key() + "#" + m.attempt());
            inPrepareWhileHandling.add((Long) redis.command("ZCARD", "rmq:prepare{ticks_0}"));
            assertThat(rmq.producer().get(MessageRef.of("ticks", m.key()))).as("gone from Redis once taken").isEmpty();
            return switch (m.key()) {
                case "fails" -> ConsumeResult.retry("no");
                case "throws" -> throw new IllegalStateException("boom");
                default -> ConsumeResult.success();
            };
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 3);
        holdsFor(Duration.ofMillis(500), () -> assertThat(handled).containsExactly("fails#1", "throws#1", "ok#1"));
        assertThat(inPrepareWhileHandling).containsOnly(0L);
        assertThat(rmq.deadQueue().count("ticks")).isZero();
        assertThat(rmq.inspector().totals("ticks").backlog()).isZero();
        assertThat(meters.find("rmq.consume").tags("topic", "ticks", "result", "retry").timer().count()).isEqualTo(2);
        assertThat(redis.command("EXISTS", "rmq:prepare{ticks_0}", "rmq:inflight{ticks_0}")).isEqualTo(0L);
    }

    @Test
    void aStoppingConsumerHandsBackWhatItNeverStartedAndLosesTheMessageItCutOff() throws Exception {
        RmqClient rmq = atMostOnce();
        for (int i = 0; i < 10; i++) {
            rmq.producer().send(OutgoingMessage.priority("ticks", "t" + i, 100 - i).withKey("t" + i));
        }
        CountDownLatch started = new CountDownLatch(1);
        RmqConsumerContainer<String> container = rmq.container("ticks", String.class, m -> {
            started.countDown();
            // never finishes on its own (the sleep is the point): the stop's bound runs out and it is interrupted
            Thread.sleep(60_000);
            return ConsumeResult.success();
        }).batchSize(10).build();
        container.start();
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(rmq.inspector().totals("ticks").backlog()).as("the batch of ten left Redis when taken").isZero();

        container.stop(Duration.ofMillis(400));

        // the nine never started are back; the one the stop interrupted had started, so at most once it is gone
        assertThat(rmq.inspector().totals("ticks").backlog()).isEqualTo(9);
        List<String> attempts = new CopyOnWriteArrayList<>();
        start(rmq, "ticks", String.class, m -> {
            attempts.add(m.key() + "#" + m.attempt());
            return ConsumeResult.success();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> attempts.size() == 9);
        assertThat(attempts).allSatisfy(a -> assertThat(a).endsWith("#1"));
        assertThat(attempts).first().isEqualTo("t1#1");
        holdsFor(Duration.ofMillis(300), () -> assertThat(attempts).noneMatch(a -> a.startsWith("t0#")));
    }

    @Test
    void aBatchOutlivingItsLeaseKeepsTheSlotWhileMessagesWaitAndNoHandlerStartsOnceItsHoldIsGone() throws Exception {
        // a new owner of the slot may poll it once the batch's deadline, kept in the hold key, is over: a handler
        // started after it could run beside that owner's. The lease keeper moves the deadline on while messages of
        // the batch wait, as it renews leases
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        RmqClient rmq = threeWaitingWithAOneSecondLease(deliveries);
        List<String> handled = new CopyOnWriteArrayList<>();
        List<String> startedWithoutHold = new CopyOnWriteArrayList<>();
        start(rmq, "ticks", String.class, m -> {
            if (!Long.valueOf(1).equals(redis.command("EXISTS", "rmq:hold{ticks_0}"))) {
                startedWithoutHold.add(m.key());
            }
            handled.add(m.key() + "#" + m.attempt());
            if (m.key().equals("t0")) {
                // outlives the batch's one-second lease (the sleep is the point)
                Thread.sleep(1_500);
            }
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)).withBatchSize(3));

        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
        holdsFor(Duration.ofMillis(300), () -> assertThat(handled).containsExactly("t0#1", "t1#1", "t2#1"));
        assertThat(startedWithoutHold).as("handlers started after their batch's deadline").isEmpty();
        assertThat(deliveries).as("taken once each: none went back for want of the hold")
                .containsExactlyInAnyOrderEntriesOf(Map.of("t0", 1, "t1", 1, "t2", 1));
        assertThat(rmq.inspector().totals("ticks").backlog()).isZero();
    }

    @Test
    void aBatchWhoseDeadlinePassedUnrenewedHandsBackWhatItNeverStarted() throws Exception {
        // the keeper cannot reach Redis while the first handler runs (script calls refused, as for a paused process
        // or a lost link), so the batch's deadline passes: a new owner may poll the slot from then on, and the two
        // messages not started must go back rather than start beside its handlers
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        RmqClient rmq = threeWaitingWithAOneSecondLease(deliveries);
        List<String> handled = new CopyOnWriteArrayList<>();
        List<String> startedWithoutHold = new CopyOnWriteArrayList<>();
        try {
            start(rmq, "ticks", String.class, m -> {
                if (!Long.valueOf(1).equals(redis.command("EXISTS", "rmq:hold{ticks_0}"))) {
                    startedWithoutHold.add(m.key());
                }
                handled.add(m.key() + "#" + m.attempt());
                if (m.key().equals("t0")) {
                    redis.command("ACL", "SETUSER", "default", "-@scripting");
                    try {
                        // the keeper's renewals at half a lease and at a whole one are refused (the sleep is the point)
                        Thread.sleep(1_500);
                    } finally {
                        redis.command("ACL", "SETUSER", "default", "+@all");
                    }
                }
                return ConsumeResult.success();
            }, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)).withBatchSize(3));

            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
            holdsFor(Duration.ofMillis(300), () -> assertThat(handled).containsExactly("t0#1", "t1#1", "t2#1"));
        } finally {
            redis.command("ACL", "SETUSER", "default", "+@all");
        }
        assertThat(startedWithoutHold).as("handlers started after their batch's deadline").isEmpty();
        assertThat(deliveries).as("the two not started went back and were taken again")
                .containsExactlyInAnyOrderEntriesOf(Map.of("t0", 1, "t1", 2, "t2", 2));
        assertThat(rmq.inspector().totals("ticks").backlog()).isZero();
    }

    /**
     * A client of an at-most-once topic with a one-second lease, where t0, t1 and t2 wait in that order; each poll's
     * taking of a key is counted in {@code deliveries}.
     */
    private RmqClient threeWaitingWithAOneSecondLease(Map<String, Integer> deliveries) {
        RmqClient rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("ticks", TopicType.PRIORITY).slotAmount(1)
                        .delivery(DeliveryGuarantee.AT_MOST_ONCE).leaseTimeout(Duration.ofSeconds(1)).build())
                .events(event -> {
                    if (event instanceof RmqEvent.Delivered delivered) {
                        deliveries.merge(delivered.key(), 1, Integer::sum);
                    }
                }).build();
        for (int i = 0; i < 3; i++) {
            rmq.producer().send(OutgoingMessage.priority("ticks", "t" + i, 100 - i).withKey("t" + i));
        }
        return rmq;
    }
}
