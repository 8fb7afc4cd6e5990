package dev.rmq.internal.producer;

import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.Script;
import dev.rmq.internal.script.SendCall;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a set of messages becomes script calls: per slot on a Cluster; on one Redis, a topic's slots share calls of up
 * to 256 messages, each slot's in the order given, and what needs send_controlled.lua still goes slot by slot.
 */
class SendPlanTests {

    private static final KeyLayout LAYOUT = new KeyLayout("");
    private static final TopicDefinition ORDERS = TopicDefinition.builder("orders", TopicType.PRIORITY)
            .slotAmount(16).build();
    private static final TopicDefinition MAIL = TopicDefinition.builder("mail", TopicType.RANGE_MERGE)
            .slotAmount(4).build();

    @Test
    void onOneRedisATopicsSlotsShareOneCallEachSlotsMessagesTogetherInTheirOrder() {
        List<SendPlan.Item> items = List.of(item(ORDERS, 3, "a"), item(ORDERS, 5, "b"), item(ORDERS, 3, "c"),
                item(ORDERS, 9, "d"), item(ORDERS, 5, "e"));

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> true).calls(items);

        assertThat(calls).hasSize(1);
        SendPlan.Call call = calls.get(0);
        assertThat(call.call().script()).isEqualTo(Script.SEND);
        assertThat(call.call().slots()).containsExactly(new SendCall.Share(3, 2), new SendCall.Share(5, 2),
                new SendCall.Share(9, 1));
        assertThat(call.slots()).containsExactly(LAYOUT.slot("orders", 3), LAYOUT.slot("orders", 5),
                LAYOUT.slot("orders", 9));
        assertThat(call.indexes()).containsExactly(0, 2, 1, 4, 3);
        assertThat(call.call().messages()).extracting(SendCall.Message::key).containsExactly("a", "c", "b", "e", "d");
    }

    @Test
    void onAClusterEachSlotHasItsOwnCall() {
        List<SendPlan.Item> items = List.of(item(ORDERS, 3, "a"), item(ORDERS, 5, "b"), item(ORDERS, 3, "c"));

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> false).calls(items);

        assertThat(calls).extracting(SendPlan.Call::indexes).containsExactly(List.of(0, 2), List.of(1));
        assertThat(calls).allSatisfy(call -> assertThat(call.slots()).hasSize(1));
        assertThat(calls.get(1).call().slots()).containsExactly(new SendCall.Share(5, 1));
    }

    @Test
    void aFullCallEndsAndTheSlotGoesOnInTheNextWithNothingLostOrReordered() {
        List<SendPlan.Item> items = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            items.add(item(ORDERS, 1, "one-" + i));
        }
        for (int i = 0; i < 300; i++) {
            items.add(item(ORDERS, 2, "two-" + i));
        }

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> true).calls(items);

        assertThat(calls).extracting(call -> call.indexes().size()).containsExactly(256, 256, 88);
        assertThat(calls.get(0).call().slots()).containsExactly(new SendCall.Share(1, 256));
        assertThat(calls.get(1).call().slots()).containsExactly(new SendCall.Share(1, 44), new SendCall.Share(2, 212));
        assertThat(calls.get(2).call().slots()).containsExactly(new SendCall.Share(2, 88));
        List<Integer> all = calls.stream().flatMap(call -> call.indexes().stream()).toList();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            expected.add(i);
        }
        assertThat(all).isEqualTo(expected);
    }

    @Test
    void whatNeedsSendControlledGoesSlotBySlotAndTheRestStillShare() {
        SendCall.Message later = new SendCall.Message("later", 5, Envelope.encodeNew(Map.of(), bytes("later"), 0, 0,
                -60_000));
        SendCall.Message kept = new SendCall.Message("kept", 5, Envelope.encodeNew(Map.of(), bytes("kept"), 0, 0, 0),
                RepeatedKey.KEEP_FIRST);
        List<SendPlan.Item> items = List.of(item(ORDERS, 1, "a"), new SendPlan.Item(ORDERS, LAYOUT.slot("orders", 2),
                later), item(ORDERS, 3, "b"), new SendPlan.Item(ORDERS, LAYOUT.slot("orders", 4), kept),
                item(ORDERS, 5, "c"));

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> true).calls(items);

        assertThat(calls).extracting(call -> call.call().script()).containsExactly(Script.SEND_CONTROLLED,
                Script.SEND_CONTROLLED, Script.SEND);
        assertThat(calls).extracting(SendPlan.Call::indexes).containsExactly(List.of(1), List.of(3), List.of(0, 2, 4));
        assertThat(calls.get(2).call().slots()).containsExactly(new SendCall.Share(1, 1), new SendCall.Share(3, 1),
                new SendCall.Share(5, 1));
    }

    @Test
    void aSlotsLaterMessagesThatNeedSendControlledWaitForItsEarlierOnesInTheSharedCall() {
        List<SendPlan.Item> items = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            items.add(item(ORDERS, 2, "two-" + i));
        }
        for (int i = 0; i < 300; i++) {
            items.add(item(ORDERS, 1, "one-" + i));
        }
        // the slot's second chunk (its messages 256 on) holds one with a not-before time
        items.set(3 + 299, new SendPlan.Item(ORDERS, LAYOUT.slot("orders", 1), new SendCall.Message("one-299", 5,
                Envelope.encodeNew(Map.of(), bytes("later"), 0, 0, -60_000))));

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> true).calls(items);

        assertThat(calls).extracting(call -> call.call().script()).containsExactly(Script.SEND, Script.SEND,
                Script.SEND_CONTROLLED);
        assertThat(calls.get(0).call().slots()).containsExactly(new SendCall.Share(2, 3), new SendCall.Share(1, 253));
        assertThat(calls.get(1).call().slots()).as("the rest of slot 1's first chunk, before its second")
                .containsExactly(new SendCall.Share(1, 3));
        assertThat(calls.get(2).indexes()).hasSize(44).startsWith(3 + 256);
        List<Integer> all = calls.stream().flatMap(call -> call.indexes().stream()).toList();
        assertThat(all).isSorted().hasSize(303);
    }

    @Test
    void topicsNeverShareACall() {
        List<SendPlan.Item> items = List.of(item(ORDERS, 1, "a"), item(MAIL, 1, "b"), item(ORDERS, 2, "c"));

        List<SendPlan.Call> calls = new SendPlan(LAYOUT, () -> true).calls(items);

        assertThat(calls).extracting(SendPlan.Call::indexes).containsExactly(List.of(0, 2), List.of(1));
        assertThat(calls.get(1).call().type()).isEqualTo(TopicType.RANGE_MERGE);
        assertThat(calls.get(1).call().wakeChannel()).isEqualTo(LAYOUT.wakeChannel("mail"));
    }

    private static SendPlan.Item item(TopicDefinition topic, int slot, String key) {
        return new SendPlan.Item(topic, LAYOUT.slot(topic.name(), slot), new SendCall.Message(key, 5,
                Envelope.encodeNew(Map.of(), bytes(key), 0, 0, 0)));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
