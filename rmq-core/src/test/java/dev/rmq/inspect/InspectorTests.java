package dev.rmq.inspect;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Counts, peeks and lookups on a real Redis, against what a consumer then really does. */
class InspectorTests extends StandaloneRedisTest {

    private static final TopicDefinition TASKS = TopicDefinition.builder("look-tasks", TopicType.PRIORITY).slotAmount(4)
            .backoff(BackoffPolicy.fixed(Duration.ofMinutes(5))).build();
    private static final TopicDefinition ORDERS = TopicDefinition.builder("look-orders", TopicType.FIXED_TIME)
            .slotAmount(4).backoff(BackoffPolicy.fixed(Duration.ofMinutes(5))).build();

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    private RmqClient client(TopicDefinition... topics) {
        rmq = RmqClient.builder(redisson).topics(List.of(topics)).build();
        return rmq;
    }

    @Test
    void countsSayWhereEveryMessageIsInOneCallPerTopic() {
        client(TASKS, ORDERS);
        long now = redisTimeMs();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            batch.add(OutgoingMessage.priority(TASKS.name(), "visible" + i, 100).withKey("visible" + i));
        }
        for (int i = 0; i < 3; i++) {
            batch.add(OutgoingMessage.priority(TASKS.name(), "delayed" + i, 100).withKey("delayed" + i)
                    .withDelay(Duration.ofMinutes(10)));
        }
        for (int i = 0; i < 4; i++) {
            batch.add(OutgoingMessage.fixedTime(ORDERS.name(), "later" + i, Instant.ofEpochMilli(now + 600_000))
                    .withKey("later" + i));
        }
        batch.add(OutgoingMessage.fixedTime(ORDERS.name(), "soon", Instant.ofEpochMilli(now + 300)).withKey("soon"));
        rmq.producer().sendAll(batch);
        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() > now + 300);

        RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name(), ORDERS.name()).build();
        puller.start();
        List<PulledMessage<String>> taken = new ArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            taken.addAll(puller.poll(4, Duration.ofMillis(100), TASKS.name()));
            return taken.size() >= 4;
        });
        // of those taken: one fails (a retry in 5 minutes), one dies, the others stay in flight
        taken.get(0).retry("once more");
        taken.get(1).dead("no");
        List<PulledMessage<String>> soon = puller.poll(1, Duration.ofSeconds(5), ORDERS.name());
        assertThat(soon).extracting(PulledMessage::key).containsExactly("soon");
        soon.get(0).retry("not yet");

        TopicCounts tasks = rmq.inspector().counts(TASKS.name());
        assertThat(tasks.slots()).hasSize(4);
        SlotCounts t = tasks.total();
        assertThat(t.dueNow()).as("visible").isEqualTo(6 - taken.size());
        assertThat(t.later()).as("delayed, and the retry waiting out its backoff").isEqualTo(3 + 1);
        assertThat(t.retrying()).isEqualTo(1);
        assertThat(t.parked()).isZero();
        assertThat(t.inFlight()).isEqualTo(taken.size() - 2);
        assertThat(t.dead()).isEqualTo(1);
        assertThat(t.waiting()).isEqualTo(t.dueNow() + t.later() + t.parked());
        assertThat(SlotCounts.sum(tasks.slots())).isEqualTo(t);

        SlotCounts o = rmq.inspector().counts(ORDERS.name()).total();
        assertThat(o.dueNow()).isZero();
        assertThat(o.later()).as("four due in ten minutes, one retrying in five").isEqualTo(5);
        assertThat(o.retrying()).isEqualTo(1);
        int soonSlot = soon.get(0).slot();
        assertThat(rmq.inspector().counts(ORDERS.name(), soonSlot).retrying()).isEqualTo(1);
        assertThat(rmq.inspector().totals(ORDERS.name()).backlog()).as("the gauges' view").isEqualTo(5);
    }

    @Test
    void aRetryRescheduledToNowCountsAsDueNotAsRetrying() {
        client(ORDERS);
        rmq.producer().send(OutgoingMessage.fixedTime(ORDERS.name(), "x", Instant.ofEpochMilli(redisTimeMs()))
                .withKey("r"));
        RmqPuller<String> puller = rmq.puller(String.class).topics(ORDERS.name()).build();
        puller.start();
        List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(5));
        assertThat(got).hasSize(1);
        got.get(0).retry("in five minutes");
        assertThat(rmq.inspector().counts(ORDERS.name()).total().retrying()).isEqualTo(1);

        assertThat(rmq.producer().reschedule(MessageRef.of(ORDERS.name(), "r"), Instant.ofEpochMilli(redisTimeMs())))
                .isTrue();
        SlotCounts o = rmq.inspector().counts(ORDERS.name()).total();
        assertThat(o.dueNow()).isEqualTo(1);
        assertThat(o.later()).isZero();
        assertThat(o.retrying()).as("of those waiting later: none").isZero();
    }

    @Test
    void theAgeOfTheOldestDueMessageSaysHowFarConsumersAreBehind() {
        TopicDefinition prices = TopicDefinition.builder("prices-age", TopicType.RANGE_MERGE).slotAmount(4).build();
        TopicDefinition jobs = TopicDefinition.builder("jobs-age", TopicType.PRIORITY).slotAmount(2).build();
        client(prices, jobs);
        assertThat(rmq.inspector().counts(prices.name()).total().dueAgeMs()).as("nothing due").isZero();

        rmq.producer().send(OutgoingMessage.rangeMerge(prices.name(), "old", Duration.ofMillis(100)).withKey("old"));
        rmq.producer().send(OutgoingMessage.rangeMerge(prices.name(), "later", Duration.ofMinutes(5)).withKey("later"));
        rmq.producer().send(OutgoingMessage.priority(jobs.name(), "job", 50).withKey("job"));
        await().pollDelay(Duration.ofMillis(1_300)).atMost(Duration.ofSeconds(3)).until(() -> true);

        TopicCounts counts = rmq.inspector().counts(prices.name());
        assertThat(counts.total().dueAgeMs()).as("due 100 ms after its send, 1.3 s ago").isBetween(1_100L, 3_000L);
        int oldSlot = prices.slotOf("old");
        assertThat(counts.slots()).allSatisfy(slot -> assertThat(slot.dueAgeMs())
                .isEqualTo(slot.slot() == oldSlot ? counts.total().dueAgeMs() : 0L));
        assertThat(rmq.inspector().totals(prices.name()).dueAgeMs()).as("the gauges' view, read a moment later")
                .isBetween(counts.total().dueAgeMs(), counts.total().dueAgeMs() + 1_000);
        assertThat(rmq.inspector().counts(jobs.name()).total().dueAgeMs()).as("priorities carry no send time")
                .isZero();
    }

    @Test
    void aSendWhileItsKeyIsInFlightCountsAsParkedOnceAPollMeetsIt() {
        client(TASKS);
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "first", 100).withKey("k"));
        RmqPuller<String> first = rmq.puller(String.class).topics(TASKS.name()).build();
        first.start();
        PulledMessage<String> held = first.poll(1, Duration.ofSeconds(2)).get(0);
        rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "second", 100).withKey("k"));
        assertThat(rmq.inspector().counts(TASKS.name()).total().dueNow()).isEqualTo(1);

        // another consumer of the slot (no coordination) meets it, and parks it behind the delivery in flight
        RmqPuller<String> other = rmq.puller(String.class).topics(TASKS.name()).build();
        other.start();
        assertThat(other.poll(1, Duration.ZERO)).isEmpty();

        SlotCounts counts = rmq.inspector().counts(TASKS.name()).total();
        assertThat(counts.parked()).isEqualTo(1);
        assertThat(counts.dueNow()).isZero();
        assertThat(counts.inFlight()).isEqualTo(1);
        assertThat(rmq.inspector().find(MessageRef.of(TASKS.name(), "k"))).get().extracting(StoredMessage::state)
                .isEqualTo(MessageState.PARKED);
        held.ack();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TopicType.class)
    void peekShowsASlotsMessagesInTheOrderAPollThenTakesThem(TopicType type) {
        TopicDefinition topic = Fixtures.topic("look-" + type.name().toLowerCase(), type, 4);
        client(topic);
        Random random = new Random(7);
        long now = redisTimeMs();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            OutgoingMessage message = switch (type) {
                case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), "m" + i, Duration.ofMillis(1 + random.nextInt(400)));
                case PRIORITY -> OutgoingMessage.priority(topic.name(), "m" + i, 17 + random.nextInt(10));
                case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), "m" + i,
                        Instant.ofEpochMilli(now + 1 + random.nextInt(400)));
            };
            batch.add(message.withKey("m" + i).withSlotBasis("one slot"));
        }
        rmq.producer().sendAll(batch);
        int slot = topic.slotOf("one slot");
        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() > now + 500);

        List<String> peeked = rmq.inspector().peek(topic.name(), slot, 0, 100).stream().map(StoredMessage::key).toList();
        List<String> topicWide = rmq.inspector().peek(topic.name(), 0, 100).stream().map(StoredMessage::key).toList();

        RmqPuller<String> puller = rmq.puller(String.class).topics(topic.name()).build();
        puller.start();
        List<String> consumed = new ArrayList<>();
        while (consumed.size() < 40) {
            for (PulledMessage<String> message : puller.poll(1, Duration.ofSeconds(2))) {
                consumed.add(message.key());
                message.ack();
            }
        }
        assertThat(peeked).hasSize(40).containsExactlyElementsOf(consumed);
        assertThat(topicWide).containsExactlyElementsOf(consumed);
    }

    @Test
    void inFlightAndFindShowLeasesAttemptsAndPlaces() {
        client(TASKS);
        rmq.producer().sendAll(List.of(OutgoingMessage.priority(TASKS.name(), "a", 100).withKey("a"),
                OutgoingMessage.priority(TASKS.name(), "b", 50).withKey("b").withSlotBasis("a"),
                OutgoingMessage.priority(TASKS.name(), "c", 50).withKey("c").withDelay(Duration.ofMinutes(5))));
        RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name()).build();
        puller.start();
        PulledMessage<String> a = puller.poll(1, Duration.ofSeconds(2)).get(0);
        assertThat(a.key()).isEqualTo("a");

        List<StoredMessage> inFlight = rmq.inspector().inFlight(TASKS.name(), 0, 10);
        assertThat(inFlight).extracting(StoredMessage::key).containsExactly("a");
        StoredMessage held = inFlight.get(0);
        assertThat(held.state()).isEqualTo(MessageState.IN_FLIGHT);
        assertThat(held.attempts()).isEqualTo(1);
        assertThat((long) (held.score() / 1000)).as("the lease deadline, in ms").isEqualTo(a.leaseDeadline().toEpochMilli());
        assertThat(held.leaseDeadline()).as("one instant, to the millisecond, wherever it is read").contains(a.leaseDeadline());
        assertThat(a.leaseDeadline().getNano() % 1_000_000).as("no microseconds").isZero();
        assertThat(rmq.inspector().inFlight(TASKS.name(), a.slot(), 0, 10)).extracting(StoredMessage::key)
                .containsExactly("a");

        assertThat(rmq.inspector().find(MessageRef.of(TASKS.name(), "a"))).get()
                .extracting(StoredMessage::state).isEqualTo(MessageState.IN_FLIGHT);
        assertThat(rmq.inspector().find(MessageRef.of(TASKS.name(), "b").withSlotBasis("a"))).get()
                .satisfies(b -> {
                    assertThat(b.state()).isEqualTo(MessageState.WAITING);
                    assertThat(b.score()).isEqualTo(50);
                });
        assertThat(rmq.inspector().find(MessageRef.of(TASKS.name(), "c"))).get()
                .extracting(StoredMessage::state).isEqualTo(MessageState.DELAYED);
        assertThat(rmq.inspector().find(MessageRef.of(TASKS.name(), "nope"))).isEmpty();
        a.ack();
    }

    @Test
    void badPagesAndUnknownTopicsAreRefusedWithWhatIsAllowed() {
        client(TASKS);
        RmqInspector inspector = rmq.inspector();
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), 0, 0))
                .withMessage("limit must be between 1 and 1000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), -1, 10))
                .withMessageContaining("offset must be zero or positive");
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), 995, 10))
                .withMessageContaining("at most 1000 deep").withMessageContaining("one slot");
        assertThat(inspector.peek(TASKS.name(), 0, 5_000, 10)).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.counts(TASKS.name(), 4))
                .withMessageContaining("slot");
        assertThatThrownBy(() -> inspector.counts("nope")).isInstanceOf(UnknownTopicException.class);
    }
}
