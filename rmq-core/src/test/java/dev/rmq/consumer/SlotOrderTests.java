package dev.rmq.consumer;

import dev.rmq.CommandMonitor;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.SlotRouter;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RTopic;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One consumer holding every slot of a 16-slot topic takes messages in the topic's order: the highest priority, or
 * the earliest due time, first, whichever slot holds them. Round robin, the option, does not.
 */
class SlotOrderTests extends StandaloneRedisTest {

    private static final int SLOTS = 16;
    private static final int MESSAGES = 200;

    private RmqClient rmq;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
        if (rmq != null) {
            rmq.close();
        }
    }

    private TopicDefinition topic(String name, TopicType type) {
        TopicDefinition topic = TopicDefinition.builder(name, type).slotAmount(SLOTS).build();
        rmq = RmqClient.builder(redisson).topics(List.of(topic)).build();
        return topic;
    }

    /** 200 distinct priorities, in a shuffled order, each under a key of its own: spread over the 16 slots. */
    private void sendPriorities(String topic) {
        List<Integer> priorities = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            priorities.add(1000 + i);
        }
        Collections.shuffle(priorities, new java.util.Random(7));
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int priority : priorities) {
            batch.add(OutgoingMessage.priority(topic, "p" + priority, priority).withKey("k" + priority));
        }
        rmq.producer().sendAll(batch);
    }

    /** Pairs taken in the wrong order: a less urgent message before a more urgent one. */
    private static long outOfOrder(List<Long> urgencies) {
        long pairs = 0;
        for (int i = 0; i < urgencies.size(); i++) {
            for (int j = i + 1; j < urgencies.size(); j++) {
                if (urgencies.get(i) < urgencies.get(j)) {
                    pairs++;
                }
            }
        }
        return pairs;
    }

    private List<Long> pullOneByOne(RmqPuller<String> puller, int messages, boolean timed) {
        List<Long> taken = new ArrayList<>();
        while (taken.size() < messages) {
            List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(5));
            assertThat(got).as("a pull after %s message(s)", taken.size()).hasSize(1);
            PulledMessage<String> message = got.get(0);
            taken.add(timed ? -message.dueTime().orElseThrow().toEpochMilli() : message.priority().orElseThrow());
            assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
        }
        return taken;
    }

    private RmqPuller<String> puller(String topic, SlotOrder order) {
        RmqPuller<String> puller = rmq.puller(String.class).topics(topic).slotOrder(order).build();
        open.add(puller);
        puller.start();
        return puller;
    }

    @Test
    void aPullerHoldingEverySlotTakesTheHighestPriorityFirst() {
        TopicDefinition topic = topic("order-pull", TopicType.PRIORITY);
        sendPriorities(topic.name());
        List<Long> taken = pullOneByOne(puller(topic.name(), SlotOrder.MOST_URGENT), MESSAGES, false);
        assertThat(outOfOrder(taken)).isZero();
    }

    @Test
    void roundRobinTakesTheSlotsInTurnWhateverTheirHeads() {
        TopicDefinition topic = topic("order-turns", TopicType.PRIORITY);
        sendPriorities(topic.name());
        List<Long> taken = pullOneByOne(puller(topic.name(), SlotOrder.ROUND_ROBIN), MESSAGES, false);
        assertThat(outOfOrder(taken)).as("the option's own order").isPositive();
    }

    @Test
    void aPullOfManyReturnsTheTopicsMostUrgentInOrder() {
        TopicDefinition topic = topic("order-many", TopicType.PRIORITY);
        sendPriorities(topic.name());
        List<PulledMessage<String>> got = puller(topic.name(), SlotOrder.MOST_URGENT).poll(10, Duration.ofSeconds(5));
        List<Long> priorities = got.stream().map(m -> m.priority().orElseThrow()).toList();
        assertThat(priorities).as("the ten most urgent over every slot, in order")
                .containsExactly(1199L, 1198L, 1197L, 1196L, 1195L, 1194L, 1193L, 1192L, 1191L, 1190L);
    }

    @Test
    void aMoreUrgentMessageSentDuringABacklogIsTakenNext() {
        TopicDefinition topic = topic("order-late", TopicType.PRIORITY);
        sendPriorities(topic.name());
        RmqPuller<String> puller = puller(topic.name(), SlotOrder.MOST_URGENT);
        List<Long> first = pullOneByOne(puller, 20, false);
        assertThat(first.get(0)).isEqualTo(1000 + MESSAGES - 1);
        // under keys of their own, so in slots whose heads the puller already knows
        for (int i = 0; i < 8; i++) {
            rmq.producer().send(OutgoingMessage.priority(topic.name(), "urgent", 5000 + i).withKey("urgent-" + i));
        }
        // a send tells the puller by pub/sub: a pull made before that arrives still goes by the heads it knew
        await().pollDelay(Duration.ofMillis(300)).until(() -> true);
        List<Long> next = pullOneByOne(puller, 8, false);
        assertThat(next).containsExactly(5007L, 5006L, 5005L, 5004L, 5003L, 5002L, 5001L, 5000L);
        assertThat(outOfOrder(pullOneByOne(puller, MESSAGES - 20, false))).isZero();
    }

    @Test
    void aPullerTakesTheEarliestDueFirstAcrossSlots() {
        TopicDefinition topic = topic("order-times", TopicType.FIXED_TIME);
        long base = redisTimeMs() + 1000;
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = MESSAGES - 1; i >= 0; i--) {
            batch.add(OutgoingMessage.fixedTime(topic.name(), "f" + i, Instant.ofEpochMilli(base + 3L * i))
                    .withKey("f" + i));
        }
        rmq.producer().sendAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> redisTimeMs() > base + 3L * MESSAGES + 50);
        List<Long> taken = pullOneByOne(puller(topic.name(), SlotOrder.MOST_URGENT), MESSAGES, true);
        assertThat(outOfOrder(taken)).isZero();
    }

    @Test
    void aContainerWorkerTakesFixedTimesInDueOrderAcrossSlotsKnowingEachHeadFromItsLastPoll() throws Exception {
        TopicDefinition topic = topic("order-due", TopicType.FIXED_TIME);
        // groups of three messages due in one millisecond, in three slots, 100 ms apart
        int groups = 8;
        long base = redisTimeMs() + 2500;
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < 3; i++) {
                batch.add(OutgoingMessage.fixedTime(topic.name(), "g" + g, Instant.ofEpochMilli(base + 100L * g))
                        .withKey("g" + g + "-" + i));
            }
        }
        rmq.producer().sendAll(batch);
        List<Long> handled = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, message -> {
            handled.add(message.dueTime().orElseThrow().toEpochMilli());
            // the point: the worker is busy while the other slots of the group come due, so that it chooses among
            // several due slots
            Thread.sleep(20);
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withBatchSize(1)
                // the empty slots' idle polls, which read their heads again, come after the test
                .withIdlePoll(Duration.ofSeconds(30))).build();
        open.add(container::stop);
        container.start();
        // the slots just assigned are read once, before the first poll of each
        await().atMost(Duration.ofSeconds(5)).until(() -> !handled.isEmpty());
        try (CommandMonitor monitor = CommandMonitor.of(redis)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3 * groups);
            assertThat(handled).as("due times as handled").isSorted();
            assertThat(monitor.count("ZRANGE", "rmq:{order-due_"))
                    .as("reads of a slot's head: each wait ends at a head that the slot's last poll named").isZero();
        }
    }

    /**
     * Slot bases of {@code n} slots, in ascending slot order: a worker that took due slots in their own order would
     * take them so.
     */
    private static List<String> basesInSlotOrder(int n) {
        TreeMap<Integer, String> bases = new TreeMap<>();
        for (int i = 0; bases.size() < n; i++) {
            bases.putIfAbsent(SlotRouter.slotOf("basis-" + i, SLOTS), "basis-" + i);
        }
        return new ArrayList<>(bases.values());
    }

    /** Sends a fixed-time message due at {@code dueMs}, its key as its payload, to the slot of {@code basis}. */
    private void sendAt(String topic, String key, long dueMs, String basis) {
        rmq.producer().send(OutgoingMessage.fixedTime(topic, key, Instant.ofEpochMilli(dueMs)).withKey(key)
                .withSlotBasis(basis));
    }

    /**
     * A container of one worker, polls of one message and an idle poll of 2 s, that takes a blocker in the slot of
     * {@code blockerBasis} and holds its handler until {@link #goAndExpect}: meanwhile the worker's other slots come
     * due and wait for its choice. The blocker is due half a second after the start, unless given a due time, so
     * that every other slot has been polled by then and has planned its next poll. The keys of the other messages,
     * as handled.
     */
    private final class BlockedWorker {

        final List<String> handled = new CopyOnWriteArrayList<>();
        private final CountDownLatch blocking = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);

        BlockedWorker(String topic, String blockerBasis) throws InterruptedException {
            this(topic, blockerBasis, redisTimeMs() + 500);
        }

        BlockedWorker(String topic, String blockerBasis, long blockerDueMs) throws InterruptedException {
            sendAt(topic, "blocker", blockerDueMs, blockerBasis);
            RmqConsumerContainer<String> container = rmq.container(topic, String.class, message -> {
                if (message.key().equals("blocker")) {
                    blocking.countDown();
                    go.await();
                } else {
                    handled.add(message.key());
                }
                return ConsumeResult.success();
            }).settings(ConsumerSettings.DEFAULTS.withBatchSize(1).withIdlePoll(Duration.ofSeconds(2))).build();
            open.add(container::stop);
            container.start();
            assertThat(blocking.await(10, TimeUnit.SECONDS)).as("the blocker handled").isTrue();
        }

        /**
         * Ends the blocker once the Redis clock is past {@code dueMs}, so that the worker chooses among its due slots,
         * and expects the other messages to be handled in the order of {@code keys}.
         */
        void goAndExpect(long dueMs, String... keys) {
            await().atMost(Duration.ofSeconds(10)).until(() -> redisTimeMs() > dueMs);
            go.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == keys.length);
            assertThat(handled).as("keys as handled").containsExactly(keys);
        }
    }

    @Test
    void messagesSentToEmptySlotsWhileTheWorkerIsBusyAreTakenInDueOrder() throws Exception {
        TopicDefinition topic = topic("order-empty", TopicType.FIXED_TIME);
        List<String> bases = basesInSlotOrder(7);
        BlockedWorker worker = new BlockedWorker(topic.name(), bases.get(0));
        // The other slots were polled empty before the blocker, and planned their next poll an idle poll later.
        // Each message is due after that poll, so no send wakes its slot; the later the slot, the earlier the
        // message.
        long due = redisTimeMs() + 2300;
        for (int i = 1; i <= 6; i++) {
            sendAt(topic.name(), "m" + (6 - i), due + 20L * (6 - i), bases.get(i));
        }
        // every message is due, and the slots' wake keys still stand, when the worker next chooses
        worker.goAndExpect(due + 130, "m0", "m1", "m2", "m3", "m4", "m5");
    }

    @Test
    void aMessageSentBeforeTheHeadThatAnIdlePollCutAWaitShortOfIsTakenInDueOrder() throws Exception {
        TopicDefinition topic = topic("order-cut", TopicType.FIXED_TIME);
        List<String> bases = basesInSlotOrder(3);
        // the head of the first slot falls due after an idle poll: its wait ends at the idle poll instead
        long head = redisTimeMs() + 3500;
        sendAt(topic.name(), "head", head, bases.get(1));
        BlockedWorker worker = new BlockedWorker(topic.name(), bases.get(0));
        // due after that idle poll, so the send wakes nothing; before the head, and before the other slot's message
        long early = redisTimeMs() + 2300;
        sendAt(topic.name(), "early", early, bases.get(1));
        sendAt(topic.name(), "other", early + 100, bases.get(2));
        worker.goAndExpect(early + 130, "early", "other", "head");
    }

    @Test
    void aMessageSentBeforeANamedHeadOnceTheSlotsWakeKeyHasExpiredIsTakenInDueOrder() throws Exception {
        TopicDefinition topic = topic("order-expired", TopicType.FIXED_TIME);
        List<String> bases = basesInSlotOrder(3);
        // due within the idle poll, 200 ms after the blocker: the worker polls the slot before it takes the blocker,
        // and the poll names it
        long head = redisTimeMs() + 1500;
        sendAt(topic.name(), "head", head, bases.get(1));
        BlockedWorker worker = new BlockedWorker(topic.name(), bases.get(0), head - 200);
        String wakeKey = "rmq:wake{" + topic.name() + "_" + SlotRouter.slotOf(bases.get(1), SLOTS) + "}";
        assertThat((Long) redis.command("PTTL", wakeKey)).as("the wake key of a planned poll, which expires")
                .isPositive();
        // The wake key outlives the planned poll by an idle poll (2 s). Once it is gone a send wakes nothing, and
        // the head the poll named may not be the slot's head any more.
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.command("EXISTS", wakeKey).equals(0L));
        // both due before the head, both past: the earlier in the head's slot, which the send does not wake
        sendAt(topic.name(), "early", head - 200, bases.get(1));
        sendAt(topic.name(), "other", head - 100, bases.get(2));
        worker.goAndExpect(head, "early", "other", "head");
    }

    @Test
    void aMessageSentBeforeAHeadReadApartFromAPollIsTakenInDueOrder() throws Exception {
        TopicDefinition topic = topic("order-read", TopicType.FIXED_TIME);
        List<String> bases = basesInSlotOrder(3);
        long now = redisTimeMs();
        sendAt(topic.name(), "other", now - 100, bases.get(2));
        sendAt(topic.name(), "head", now - 50, bases.get(1));
        // The worker reads the heads of the slots just assigned, and polls the blocker's first, the earliest. The
        // other two slots are read, not polled, while it holds the blocker.
        BlockedWorker worker = new BlockedWorker(topic.name(), bases.get(0), now - 300);
        // before the head read in its slot, and before the other slot's message: the send wakes the slot
        String slot = String.valueOf(SlotRouter.slotOf(bases.get(1), SLOTS));
        RTopic channel = redisson.getTopic("rmq:wake:" + topic.name(), StringCodec.INSTANCE);
        List<String> woken = new CopyOnWriteArrayList<>();
        int listener = channel.addListener(String.class, (ch, text) -> woken.add(text));
        try {
            sendAt(topic.name(), "early", now - 200, bases.get(1));
            // The worker listens on the same client's subscription to the channel, which hands each message to every
            // listener as it arrives: the worker has the wake-up, or has it within microseconds, long before the end
            // of the blocker's handler reaches its next choice.
            await().atMost(Duration.ofSeconds(5)).until(() -> woken.contains(slot));
        } finally {
            channel.removeListener(listener);
        }
        worker.goAndExpect(now, "early", "other", "head");
    }

    @Test
    void aContainerWorkerHoldingEverySlotHandlesTheHighestPriorityFirst() {
        TopicDefinition topic = topic("order-container", TopicType.PRIORITY);
        sendPriorities(topic.name());
        List<Long> handled = new CopyOnWriteArrayList<>();
        for (int batchSize : new int[] {1, 64}) {
            handled.clear();
            if (batchSize == 64) {
                sendPriorities(topic.name());
            }
            RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class,
                    RmqHandler.committing(m -> handled.add(m.priority().orElseThrow())))
                    .settings(ConsumerSettings.DEFAULTS.withBatchSize(batchSize)).build();
            container.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= MESSAGES);
            container.stop();
            assertThat(outOfOrder(handled)).as("out of order with polls of %s", batchSize).isZero();
        }
    }

    @Test
    void aDelayedMessageThatComesDueInASlotWithWaitingMessagesGoesBeforeLessUrgentOnesOfOtherSlots() {
        TopicDefinition topic = lowAndBusySlots("due-later");
        String lowSlot = basisOf(topic, 0);
        List<String> seen = new CopyOnWriteArrayList<>();
        RmqConsumerContainer<String> container = rmq.container(topic.name(), String.class, m -> {
            seen.add(m.key());
            Thread.sleep(20); // the handler's work: the other slot's 40 messages take 800 ms
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withConcurrency(1).withBatchSize(1)).build();
        open.add(container::stop);
        container.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 2);
        // no send wakes the consumer when it comes due, in the slot whose known head is the least urgent
        rmq.producer().send(OutgoingMessage.priority(topic.name(), "urgent", 100).withKey("urgent")
                .withSlotBasis(lowSlot).withDelay(Duration.ofMillis(200)));

        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 44);
        // due about ten handlers after it was sent; before the fix it came after the whole backlog of the other slot
        assertThat(seen.subList(seen.indexOf("urgent"), seen.size()).stream().filter(key -> key.startsWith("mid")))
                .as("taken once due, before the other slot's less urgent backlog is done").hasSizeGreaterThan(15);
    }

    @Test
    void aPullerTakesADelayedMessageThatCameDueBeforeLessUrgentOnesOfOtherSlots() throws InterruptedException {
        TopicDefinition topic = lowAndBusySlots("due-later-pull");
        RmqPuller<String> puller = puller(topic.name(), SlotOrder.MOST_URGENT);
        List<String> seen = new ArrayList<>();
        while (seen.size() < 44) {
            if (seen.size() == 2) {
                // in the slot whose head is the least urgent; nothing tells the puller when it comes due
                rmq.producer().send(OutgoingMessage.priority(topic.name(), "urgent", 100).withKey("urgent")
                        .withSlotBasis(basisOf(topic, 0)).withDelay(Duration.ofMillis(200)));
            }
            List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(5));
            assertThat(got).as("a pull after %s message(s)", seen.size()).hasSize(1);
            seen.add(got.get(0).key());
            assertThat(got.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
            Thread.sleep(20); // the program's work: the other slot's 40 messages take 800 ms
        }
        // due about ten pulls after it was sent; before the fix it came after the whole backlog of the other slot
        assertThat(seen.subList(seen.indexOf("urgent"), seen.size()).stream().filter(key -> key.startsWith("mid")))
                .as("taken once due, before the other slot's less urgent backlog is done").hasSizeGreaterThan(15);
    }

    @Test
    void aPullOfManyRanksTheDelayedMessagesThatCameDueAmongTheOthersAndFillsItsCount() {
        TopicDefinition topic = lowAndBusySlots("due-later-many");
        RmqPuller<String> puller = puller(topic.name(), SlotOrder.MOST_URGENT);
        // in the slot whose waiting head is the least urgent: one above the other slot's messages, one below
        rmq.producer().sendAll(List.of(
                OutgoingMessage.priority(topic.name(), "x", 100).withKey("urgent").withSlotBasis(basisOf(topic, 0))
                        .withDelay(Duration.ofMillis(50)),
                OutgoingMessage.priority(topic.name(), "x", 30).withKey("later").withSlotBasis(basisOf(topic, 0))
                        .withDelay(Duration.ofMillis(50))));
        // both came due by then, as they were sent before; nothing tells the puller when, which is the case under test
        long due = redisTimeMs() + 50;
        await().atMost(Duration.ofSeconds(5)).until(() -> redisTimeMs() > due);

        List<PulledMessage<String>> got = puller.poll(10, Duration.ofSeconds(5));

        assertThat(got).extracting(PulledMessage::key).as("the most urgent ten over both slots, in order")
                .hasSize(10).startsWith("urgent").doesNotContain("later")
                .filteredOn(key -> key.startsWith("mid")).hasSize(9);
    }

    /**
     * A priority topic of two slots, and a client of it: slot 0 holds three messages of priority 20, slot 1 forty of
     * priority 50, keyed low0.. and mid0...
     */
    private TopicDefinition lowAndBusySlots(String name) {
        TopicDefinition topic = TopicDefinition.builder(name, TopicType.PRIORITY).slotAmount(2).build();
        rmq = RmqClient.builder(redisson).topic(topic).build();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batch.add(OutgoingMessage.priority(name, "low", 20).withKey("low" + i).withSlotBasis(basisOf(topic, 0)));
        }
        for (int i = 0; i < 40; i++) {
            batch.add(OutgoingMessage.priority(name, "mid", 50).withKey("mid" + i).withSlotBasis(basisOf(topic, 1)));
        }
        rmq.producer().sendAll(batch);
        return topic;
    }

    /** A slot basis that routes to {@code slot}. */
    private static String basisOf(TopicDefinition topic, int slot) {
        for (int i = 0; ; i++) {
            if (topic.slotOf("b" + i) == slot) {
                return "b" + i;
            }
        }
    }
}
