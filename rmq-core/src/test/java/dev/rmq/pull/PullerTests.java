package dev.rmq.pull;

import dev.rmq.dead.DeadReason;
import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.exceptions.RmqException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The pull consumer on a real standalone Redis: what it hands over, when, and what ending a message does. */
class PullerTests extends StandaloneRedisTest {

    private static final TopicDefinition MERGE = Fixtures.topic("pull-merge", TopicType.RANGE_MERGE, 4);
    private static final TopicDefinition TASKS = TopicDefinition.builder("pull-tasks", TopicType.PRIORITY).slotAmount(4)
            .leaseTimeout(Duration.ofSeconds(1)).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build();
    private static final TopicDefinition ORDERS = Fixtures.topic("pull-orders", TopicType.FIXED_TIME, 4);
    private static final TopicDefinition GAUGES = TopicDefinition.builder("pull-gauges", TopicType.PRIORITY)
            .slotAmount(2).delivery(DeliveryGuarantee.AT_MOST_ONCE).build();

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    private RmqPuller<String> puller(String... topics) {
        rmq = rmq != null ? rmq : RmqClient.builder(redisson).topics(List.of(MERGE, TASKS, ORDERS, GAUGES)).build();
        RmqPuller<String> puller = rmq.puller(String.class).topics(topics).build();
        puller.start();
        return puller;
    }

    @Test
    void aPullerOverThreeTopicsReceivesEachMessageOnceWhenItAcks() {
        RmqPuller<String> puller = puller(MERGE.name(), TASKS.name(), ORDERS.name());
        long due = redisTimeMs() + 200;
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(OutgoingMessage.rangeMerge(MERGE.name(), "m" + i, Duration.ofMillis(20)).withKey("m" + i));
            batch.add(OutgoingMessage.priority(TASKS.name(), "p" + i, 17 + i).withKey("p" + i));
            batch.add(OutgoingMessage.fixedTime(ORDERS.name(), "f" + i, Instant.ofEpochMilli(due)).withKey("f" + i));
        }
        rmq.producer().sendAll(batch);

        Map<String, Integer> received = new HashMap<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<PulledMessage<String>> got = puller.poll(37, Duration.ofMillis(500));
            got.forEach(m -> received.merge(m.key(), 1, Integer::sum));
            // half one by one, half in one call per slot
            List<PulledMessage<String>> together = new ArrayList<>();
            for (int i = 0; i < got.size(); i++) {
                if (i % 2 == 0) {
                    assertThat(got.get(i).ack()).isEqualTo(AckOutcome.COMMITTED);
                } else {
                    together.add(got.get(i));
                }
            }
            assertThat(puller.ackAll(together)).containsOnly(AckOutcome.COMMITTED);
            return received.size() == 300;
        });

        assertThat(received.values()).containsOnly(1);
        assertThat(puller.poll(100, Duration.ofMillis(1500))).as("nothing is delivered twice").isEmpty();
        for (String topic : List.of(MERGE.name(), TASKS.name(), ORDERS.name())) {
            assertThat(rmq.inspector().totals(topic).backlog()).isZero();
            assertThat(rmq.inspector().totals(topic).inFlight()).isZero();
        }
    }

    @Test
    void messagesComeAsEachTypeOrdersThemAndNotBeforeTheyAreDue() {
        RmqPuller<String> puller = puller(TASKS.name(), ORDERS.name());
        long due = redisTimeMs() + 700;
        rmq.producer().sendAll(List.of(
                OutgoingMessage.priority(TASKS.name(), "low", 20).withKey("low").withSlotBasis("one"),
                OutgoingMessage.priority(TASKS.name(), "high", 900).withKey("high").withSlotBasis("one"),
                OutgoingMessage.fixedTime(ORDERS.name(), "later", Instant.ofEpochMilli(due)).withKey("later")));

        List<PulledMessage<String>> first = puller.poll(10, Duration.ZERO, TASKS.name());
        assertThat(first).extracting(PulledMessage::key).containsExactly("high", "low");
        puller.ackAll(first);
        assertThat(puller.poll(10, Duration.ZERO, ORDERS.name())).as("not yet due").isEmpty();

        List<PulledMessage<String>> later = puller.poll(10, Duration.ofSeconds(5), ORDERS.name());
        assertThat(later).extracting(PulledMessage::key).containsExactly("later");
        assertThat(redisTimeMs()).isGreaterThanOrEqualTo(due);
        assertThat(later.get(0).dueTime()).contains(Instant.ofEpochMilli(due));
    }

    @Test
    void aPullerThatNeverAcksGetsItsMessagesBackAfterTheLease() {
        RmqPuller<String> puller = puller(TASKS.name());
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "job", 100).withKey("job"));

        PulledMessage<String> first = puller.poll(1, Duration.ZERO).get(0);
        assertThat(first.attempt()).isEqualTo(1);
        assertThat(puller.inFlight()).isEqualTo(1);

        List<PulledMessage<String>> again = puller.poll(1, Duration.ofSeconds(10));
        assertThat(again).extracting(PulledMessage::key).containsExactly("job");
        assertThat(again.get(0).attempt()).isEqualTo(2);
        assertThat(again.get(0).lastError()).contains("lease expired");
        assertThat(Instant.now()).isAfterOrEqualTo(first.leaseDeadline());
        assertThatThrownBy(first::ack).isInstanceOf(LeaseExpiredException.class)
                .hasMessageContaining("'job'").hasMessageContaining("lease").hasMessageContaining("delivered again");
        assertThat(again.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void anAckOfManyWhoseCallForOneSlotFailsStillAcknowledgesTheOtherSlotsAndSaysSo() {
        RmqPuller<String> puller = puller(TASKS.name());
        Map<String, PulledMessage<String>> byKey = threeInThreeSlots(puller);
        // the call for b's slot fails: its leases' key holds what no script can read
        redis.command("DEL", "rmq:prepare{pull-tasks_1}");
        redis.command("SET", "rmq:prepare{pull-tasks_1}", "not a sorted set");

        assertThatThrownBy(() -> puller.ackAll(List.of(byKey.get("a"), byKey.get("b"), byKey.get("c"))))
                .isInstanceOf(RmqException.class)
                .hasMessageContaining("acknowledged 2 of 3 message(s) {COMMITTED=2}")
                .hasMessageContaining("1 slot call(s) failed");
        assertThat(redis.command("ZCARD", "rmq:prepare{pull-tasks_0}")).as("a's slot").isEqualTo(0L);
        assertThat(redis.command("ZCARD", "rmq:prepare{pull-tasks_2}")).as("c's slot, after the failed one")
                .isEqualTo(0L);
        redis.command("DEL", "rmq:prepare{pull-tasks_1}");
    }

    @Test
    void endingAMessageRetriesItBuriesItOrExtendsItsLease() {
        RmqPuller<String> puller = puller(TASKS.name());
        // 'c' keeps its slot busy while its lease is extended: 'a' is sent to another slot, so its retry can come
        Map<String, PulledMessage<String>> byKey = threeInThreeSlots(puller);

        assertThat(byKey.get("a").retryNow("try again")).isEqualTo(AckOutcome.RETRY);
        assertThat(byKey.get("b").dead("not for us")).isEqualTo(AckOutcome.DEAD);
        byKey.get("c").extend(Duration.ofSeconds(5));
        assertThat(byKey.get("c").leaseDeadline()).isAfter(Instant.now().plusSeconds(3));
        assertThatIllegalStateException().isThrownBy(() -> byKey.get("a").ack()).withMessageContaining("already ended");

        List<PulledMessage<String>> retried = puller.poll(10, Duration.ofSeconds(5));
        assertThat(retried).extracting(PulledMessage::key).containsExactly("a");
        assertThat(retried.get(0).attempt()).isEqualTo(2);
        assertThat(retried.get(0).lastError()).isEqualTo("try again");
        assertThat(rmq.deadQueue().list(TASKS.name(), byKey.get("b").slot(), 0, 10))
                .anySatisfy(dead -> {
                    assertThat(dead.reason()).isEqualTo(DeadReason.HANDLER_VERDICT);
                    assertThat(dead.lastError()).isEqualTo("not for us");
                });
        assertThat(byKey.get("c").ack()).as("the extended lease is still good after the first one ran out")
                .isEqualTo(AckOutcome.COMMITTED);
        retried.get(0).ack();
    }

    @Test
    void aLongPollWakesOnASendWithoutPollingRedisInALoop() throws Exception {
        rmq = RmqClient.builder(redisson).topics(List.of(MERGE, TASKS, ORDERS, GAUGES)).build();
        // an idle poll longer than the wait: only the wake-up of the send can end the wait with the message
        RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name()).idlePoll(Duration.ofSeconds(60)).build();
        puller.start();
        assertThat(puller.poll(1, Duration.ZERO)).isEmpty();
        long callsBefore = scriptCalls();
        CompletableFuture<List<PulledMessage<String>>> waiting =
                CompletableFuture.supplyAsync(() -> puller.poll(5, Duration.ofSeconds(20)));
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(scriptCalls() - callsBefore).as("script calls while the poll waited").isLessThanOrEqualTo(1);

        long sentAt = System.nanoTime();
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "wake", 100).withKey("wake"));
        List<PulledMessage<String>> got = waiting.get();
        long wokeMs = (System.nanoTime() - sentAt) / 1_000_000;

        assertThat(got).extracting(PulledMessage::key).containsExactly("wake");
        org.slf4j.LoggerFactory.getLogger(PullerTests.class).info("a long poll returned {} ms after the send", wokeMs);
        got.get(0).ack();
    }

    /** A slot basis that routes to {@code slot} of the tasks topic. */
    /** Messages 'a', 'b' and 'c' of TASKS, in slots 0, 1 and 2, sent and pulled: by their keys. */
    private Map<String, PulledMessage<String>> threeInThreeSlots(RmqPuller<String> puller) {
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(TASKS.name(), "a", 100).withKey("a").withSlotBasis(basisOf(0)),
                OutgoingMessage.priority(TASKS.name(), "b", 100).withKey("b").withSlotBasis(basisOf(1)),
                OutgoingMessage.priority(TASKS.name(), "c", 100).withKey("c").withSlotBasis(basisOf(2))));
        Map<String, PulledMessage<String>> byKey = new HashMap<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            puller.poll(10, Duration.ofMillis(200)).forEach(m -> byKey.put(m.key(), m));
            return byKey.size() == 3;
        });
        return byKey;
    }

    private static String basisOf(int slot) {
        for (int i = 0; ; i++) {
            if (TASKS.slotOf("basis-" + i) == slot) {
                return "basis-" + i;
            }
        }
    }

    @Test
    void aPollSharesItsCountBetweenTopicsAndSlotsSoABusyOneStarvesNoOther() {
        RmqPuller<String> puller = puller(TASKS.name(), MERGE.name());
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            // one busy slot of one busy topic
            batch.add(OutgoingMessage.priority(TASKS.name(), "busy" + i, 100).withKey("busy" + i).withSlotBasis("hot"));
        }
        for (int i = 0; i < 12; i++) {
            batch.add(OutgoingMessage.priority(TASKS.name(), "quiet" + i, 100).withKey("quiet" + i));
        }
        for (int i = 0; i < 5; i++) {
            batch.add(OutgoingMessage.rangeMerge(MERGE.name(), "merge" + i, Duration.ofMillis(1)).withKey("merge" + i));
        }
        rmq.producer().sendAll(batch);
        long sent = redisTimeMs();
        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() > sent + 5);

        List<PulledMessage<String>> got = puller.poll(40, Duration.ofSeconds(1));

        assertThat(got).hasSize(40);
        assertThat(got).filteredOn(m -> m.topic().equals(MERGE.name())).as("the quiet topic's messages").hasSize(5);
        // equal priorities go by key, so the quiet messages that share the busy slot come before its own
        assertThat(got).filteredOn(m -> m.key().startsWith("quiet")).as("every quiet message, beside the busy slot")
                .hasSize(12);
        assertThat(got).filteredOn(m -> m.key().startsWith("busy")).as("the busy slot gets what is left").isNotEmpty();
    }

    @Test
    void closeHandsBackWhatWasNotEndedWithoutCountingAnAttempt() {
        RmqPuller<String> puller = puller(TASKS.name());
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(TASKS.name(), "x", 100).withKey("x"),
                OutgoingMessage.priority(TASKS.name(), "y", 100).withKey("y")));
        List<PulledMessage<String>> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            got.addAll(puller.poll(10, Duration.ofMillis(200)));
            return got.size() == 2;
        });
        got.get(0).ack();

        puller.close();

        assertThat(rmq.inspector().totals(TASKS.name()).inFlight()).isZero();
        RmqPuller<String> next = rmq.puller(String.class).topics(TASKS.name()).build();
        next.start();
        List<PulledMessage<String>> again = next.poll(10, Duration.ofSeconds(5));
        assertThat(again).extracting(PulledMessage::key).containsExactly(got.get(1).key());
        assertThat(again.get(0).attempt()).as("a hand-back is not an attempt").isEqualTo(1);
        assertThatIllegalStateException().isThrownBy(() -> puller.poll(1, Duration.ZERO)).withMessageContaining("closed");
    }

    @Test
    void pauseAndTimeToLiveApplyToPulledMessagesToo() {
        RmqPuller<String> puller = puller(TASKS.name());
        rmq.admin().pause(TASKS.name());
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "held", 100).withKey("held"));
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "short", 100).withKey("short")
                .withTtl(Duration.ofMillis(100)));
        assertThat(puller.poll(10, Duration.ofMillis(800))).as("paused").isEmpty();

        rmq.admin().resume(TASKS.name());
        List<PulledMessage<String>> got = puller.poll(10, Duration.ofSeconds(5));

        assertThat(got).extracting(PulledMessage::key).containsExactly("held");
        got.get(0).ack();
    }

    @Test
    void anAtMostOnceMessageIsGoneOnceTakenWhateverTheProgramDoes() {
        RmqPuller<String> puller = puller(GAUGES.name());
        rmq.producer().send(OutgoingMessage.priority(GAUGES.name(), "reading", 100).withKey("reading"));

        PulledMessage<String> got = puller.poll(1, Duration.ofSeconds(5)).get(0);

        assertThat(rmq.inspector().totals(GAUGES.name()).backlog() + rmq.inspector().totals(GAUGES.name()).inFlight())
                .isZero();
        assertThat(got.retry("no luck")).isEqualTo(AckOutcome.GONE);
        assertThat(puller.poll(1, Duration.ofMillis(500))).isEmpty();
    }

    @Test
    void badArgumentsAreRefusedWithWhatIsAllowed() {
        rmq = RmqClient.builder(redisson).topics(List.of(MERGE, TASKS, ORDERS, GAUGES)).build();
        RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name()).build();
        assertThatIllegalStateException().isThrownBy(() -> puller.poll(1, Duration.ZERO))
                .withMessageContaining("not started");
        puller.start();
        assertThatIllegalStateException().isThrownBy(puller::start).withMessageContaining("starts once");

        assertThatIllegalArgumentException().isThrownBy(() -> puller.poll(0, Duration.ZERO))
                .withMessage("count must be between 1 and 10000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> puller.poll(10_001, Duration.ZERO))
                .withMessageContaining("between 1 and 10000");
        assertThatIllegalArgumentException().isThrownBy(() -> puller.poll(1, Duration.ofMillis(-1)))
                .withMessageContaining("timeout must be zero or positive");
        assertThatIllegalArgumentException().isThrownBy(() -> puller.poll(1, null))
                .withMessageContaining("timeout");
        assertThatThrownBy(() -> puller.poll(1, Duration.ZERO, "nope")).isInstanceOf(UnknownTopicException.class)
                .hasMessageContaining("nope");
        assertThatIllegalArgumentException().isThrownBy(() -> puller.poll(1, Duration.ZERO, ORDERS.name()))
                .withMessageContaining("does not take from topic 'pull-orders'");
        assertThatIllegalArgumentException().isThrownBy(() -> rmq.puller(String.class).build())
                .withMessageContaining("at least one topic");
        assertThatThrownBy(() -> rmq.puller(String.class).topics("nope")).isInstanceOf(UnknownTopicException.class);

        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "r", 100).withKey("r"));
        PulledMessage<String> got = puller.poll(1, Duration.ofSeconds(5)).get(0);
        assertThatIllegalArgumentException().isThrownBy(() -> got.retry(" ")).withMessageContaining("reason");
        assertThatIllegalArgumentException().isThrownBy(() -> got.extend(Duration.ofMillis(-1)))
                .withMessageContaining("at least 1 ms").withMessageContaining("Duration.ZERO hands the message back");
        assertThatIllegalArgumentException().isThrownBy(() -> got.extend(Duration.ofSeconds(Long.MAX_VALUE)))
                .withMessageContaining("at most");
        assertThatIllegalArgumentException().isThrownBy(() -> puller.ackAll(List.of(got, got)))
                .withMessageContaining("given more than once");
        assertThat(got.isSettled()).as("a refused call ends nothing").isFalse();
        got.ack();
        assertThatIllegalArgumentException().isThrownBy(() -> puller.ackAll(List.of(got)))
                .withMessageContaining("already ended");
    }

    @Test
    void aDeadMessageRequeuedWhileANewerSendOfItsKeyIsInFlightIsSupersededByIt() {
        RmqPuller<String> puller = puller(TASKS.name());
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "v1", 50).withKey("k").withSlotBasis("s"));
        PulledMessage<String> first = Fixtures.pollOne(puller);
        assertThat(first.dead("broken")).isEqualTo(AckOutcome.DEAD);
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "v2", 50).withKey("k").withSlotBasis("s"));
        PulledMessage<String> second = Fixtures.pollOne(puller);
        assertThat(second.payload()).isEqualTo("v2");

        assertThat(rmq.deadQueue().requeue(TASKS.name(), second.slot(), "k")).as("dropped, not dead").isTrue();
        assertThat(rmq.deadQueue().count(TASKS.name())).isZero();
        // the newer send's delivery goes back to waiting: it is the one that waits, not the dead one
        assertThat(second.release()).isEqualTo(AckOutcome.RELEASED);
        PulledMessage<String> again = Fixtures.pollOne(puller);
        assertThat(again.payload()).isEqualTo("v2");
        assertThat(again.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(puller.poll(10, Duration.ofMillis(300))).as("nothing of the dead one is left").isEmpty();
    }


    @Test
    void aClosedPullerIsLetGoByItsClientSinceItNeverStartsAgain() {
        rmq = RmqClient.builder(redisson).topics(List.of(MERGE, TASKS, ORDERS, GAUGES)).build();
        List<WeakReference<RmqPuller<String>>> closed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name()).build();
            puller.start();
            assertThat(puller.poll(1, Duration.ofMillis(50))).isEmpty();
            puller.close();
            closed.add(new WeakReference<>(puller));
        }
        // a puller per job, as an application may build them, must not pile up in the client for its whole life
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return closed.stream().allMatch(ref -> ref.get() == null);
        });
    }

    @Test
    void aMessageTheProgramDroppedIsLetGoOnceItsLeaseRanOutAndItsSlotIsPolledAgain() {
        RmqPuller<String> puller = puller(TASKS.name());
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "work", 50).withKey("dropped"));
        WeakReference<PulledMessage<String>> dropped = new WeakReference<>(Fixtures.pollOne(puller));
        // the program never ends it (an HTTP client that went away): its lease of 1 s runs out, and it comes again
        PulledMessage<String> again = await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<PulledMessage<String>> got = puller.poll(1, Duration.ofMillis(200));
            return got.isEmpty() ? null : got.get(0);
        }, java.util.Objects::nonNull);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.ack()).isEqualTo(AckOutcome.COMMITTED);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return dropped.get() == null;
        });
    }
}
