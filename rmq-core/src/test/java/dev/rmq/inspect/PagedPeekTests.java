package dev.rmq.inspect;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Paging a whole topic with a cursor, past the depth an offset reaches, in consume order and newest first. */
class PagedPeekTests extends StandaloneRedisTest {

    private static final TopicDefinition TASKS = TopicDefinition.builder("paged-tasks", TopicType.PRIORITY)
            .slotAmount(4).build();
    private static final TopicDefinition ORDERS = TopicDefinition.builder("paged-orders", TopicType.FIXED_TIME)
            .slotAmount(8).build();

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    /** Every page of the topic from {@code start}, checking that each holds at most {@code limit}. */
    private List<String> pageThrough(String topic, PeekCursor start, int limit) {
        List<String> keys = new ArrayList<>();
        PeekCursor cursor = start;
        int pages = 0;
        while (cursor != null) {
            PeekPage page = rmq.inspector().peek(topic, cursor, limit);
            assertThat(page.messages()).hasSizeLessThanOrEqualTo(limit);
            page.messages().stream().map(StoredMessage::key).forEach(keys::add);
            // a cursor survives a trip through text, as it makes over HTTP
            cursor = page.next() == null ? null : PeekCursor.parse(page.next().token());
            assertThat(++pages).as("pages").isLessThan(1_000);
        }
        return keys;
    }

    @Test
    void aPriorityTopicIsPagedBeyondAnOffsetsDepthInTheOrderConsumersTakeItAndInReverse() {
        rmq = RmqClient.builder(redisson).topic(TASKS).build();
        // distinct priorities, shuffled: the order is then one, whatever the slots
        List<Integer> priorities = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            priorities.add(17 + i);
        }
        Collections.shuffle(priorities, new Random(7));
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int priority : priorities) {
            batch.add(OutgoingMessage.priority(TASKS.name(), "p", priority).withKey("p" + priority));
        }
        // and some not visible yet, each an hour and a few seconds away
        for (int i = 0; i < 30; i++) {
            batch.add(OutgoingMessage.priority(TASKS.name(), "d", 500).withKey("d" + i)
                    .withDelay(Duration.ofHours(1).plusSeconds(30 - i)));
        }
        rmq.producer().sendAll(batch);

        List<String> expected = new ArrayList<>();
        for (int priority = 17 + 2_499; priority >= 17; priority--) {
            expected.add("p" + priority);
        }
        for (int i = 29; i >= 0; i--) {
            expected.add("d" + i);
        }
        assertThat(pageThrough(TASKS.name(), PeekCursor.first(), 100)).containsExactlyElementsOf(expected);
        Collections.reverse(expected);
        assertThat(pageThrough(TASKS.name(), PeekCursor.newestFirst(), 333)).containsExactlyElementsOf(expected);
        // the first page from the start is the offset page of old
        assertThat(rmq.inspector().peek(TASKS.name(), PeekCursor.first(), 50).messages())
                .extracting(StoredMessage::key).containsExactlyElementsOf(rmq.inspector().peek(TASKS.name(), 0, 50)
                        .stream().map(StoredMessage::key).toList());
    }

    @Test
    void aTimedTopicIsPagedEarliestDueFirstOrLatestFirstAndTheLastPageSaysSo() {
        rmq = RmqClient.builder(redisson).topic(ORDERS).build();
        Instant base = Instant.now().plus(Duration.ofHours(2));
        List<OutgoingMessage> batch = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(11));
        for (int i : order) {
            batch.add(OutgoingMessage.fixedTime(ORDERS.name(), "o", base.plusMillis(i * 10L)).withKey("o" + i));
        }
        rmq.producer().sendAll(batch);

        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            expected.add("o" + i);
        }
        assertThat(pageThrough(ORDERS.name(), PeekCursor.first(), 250)).containsExactlyElementsOf(expected);
        Collections.reverse(expected);
        assertThat(pageThrough(ORDERS.name(), PeekCursor.newestFirst(), 1_000)).containsExactlyElementsOf(expected);

        PeekPage all = rmq.inspector().peek(ORDERS.name(), PeekCursor.first(), 1_000);
        assertThat(all.next()).isNotNull();
        PeekPage rest = rmq.inspector().peek(ORDERS.name(), all.next(), 1_000);
        assertThat(rest.messages()).hasSize(500);
        assertThat(rest.next()).as("the end was reached").isNull();
    }

    @Test
    void aSlotThatFillsThePageGoesOnOnTheNextEvenWhenTheOtherSlotsAreEmpty() {
        rmq = RmqClient.builder(redisson).topic(TASKS).build();
        for (int i = 0; i < 3; i++) {
            rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "s", 30 - i).withKey("s" + i)
                    .withSlotBasis("one slot"));
        }
        PeekPage first = rmq.inspector().peek(TASKS.name(), PeekCursor.first(), 2);
        assertThat(first.messages()).extracting(StoredMessage::key).containsExactly("s0", "s1");
        assertThat(first.next()).as("the slot holds one more").isNotNull();
        PeekPage last = rmq.inspector().peek(TASKS.name(), first.next(), 2);
        assertThat(last.messages()).extracting(StoredMessage::key).containsExactly("s2");
        assertThat(last.next()).isNull();
    }

    @Test
    void badCursorsAndPagesAreRefusedWithWhatIsAllowed() {
        rmq = RmqClient.builder(redisson).topics(List.of(TASKS, ORDERS)).build();
        RmqInspector inspector = rmq.inspector();
        assertThatIllegalArgumentException().isThrownBy(() -> PeekCursor.parse("not a cursor"))
                .withMessageContaining("is not a cursor that a page of rmq gave");
        assertThatIllegalArgumentException().isThrownBy(() -> PeekCursor.parse(""))
                .withMessageContaining("PeekCursor.first()");
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), (PeekCursor) null, 10))
                .withMessageContaining("cursor must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), PeekCursor.first(), 0))
                .withMessage("limit must be between 1 and 1000, was 0");
        // a cursor that has read slot 6 of the 8-slot topic, used on the 4-slot one
        PeekCursor ofOrders = PeekCursor.first().advance(Map.of(6, 3));
        assertThatIllegalArgumentException().isThrownBy(() -> inspector.peek(TASKS.name(), ofOrders, 10))
                .withMessageContaining("does not have (it has 4)");
        assertThat(PeekCursor.parse(ofOrders.token())).isEqualTo(ofOrders);
        assertThat(inspector.peek(TASKS.name(), PeekCursor.newestFirst(), 10))
                .isEqualTo(new PeekPage(List.of(), null));
    }
}
