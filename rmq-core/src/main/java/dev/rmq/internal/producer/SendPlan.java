package dev.rmq.internal.producer;

import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.SendCall;
import dev.rmq.topic.TopicDefinition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The script calls that send a set of messages. Each call carries up to {@value ScriptProducer#MESSAGES_PER_CALL}
 * messages of one topic, a slot's in the order given. On a Cluster a call carries one slot's messages. Where Redis
 * takes keys of several hash slots in one call (standalone, Sentinel; asked before the first call, see
 * ScriptRunner.slotsShareCalls), the slots of a topic share calls: a batch spread over 16 slots, or single sends
 * that meet over them, pays one call's fixed cost in Redis instead of one per slot. Messages that need
 * send_controlled.lua (a backlog cap, FIFO, a not-before time, a rule for a repeated key) still go slot by slot.
 */
final class SendPlan {

    /** A message to send, to its slot. */
    record Item(TopicDefinition topic, SlotKeys slot, SendCall.Message message) {
    }

    /**
     * One script call.
     *
     * @param slots   the slots whose keys it passes, in the order of the call's shares
     * @param call    the call
     * @param indexes which of the items it carries, in the call's order, its results in that order
     */
    record Call(List<SlotKeys> slots, SendCall call, List<Integer> indexes) {
    }

    private final KeyLayout keys;
    private final BooleanSupplier slotsShareCalls;

    /** @param slotsShareCalls whether a call may carry several slots now (see ScriptRunner.slotsShareCalls) */
    SendPlan(KeyLayout keys, BooleanSupplier slotsShareCalls) {
        this.keys = keys;
        this.slotsShareCalls = slotsShareCalls;
    }

    /**
     * The calls that send {@code items}, in the order they must run: each item in exactly one of them, and each slot's
     * items in the order given.
     */
    List<Call> calls(List<Item> items) {
        boolean sharing = slotsShareCalls.getAsBoolean();
        Map<TopicDefinition, Map<SlotKeys, List<Integer>>> byTopic = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Item item = items.get(i);
            byTopic.computeIfAbsent(item.topic(), t -> new LinkedHashMap<>())
                    .computeIfAbsent(item.slot(), s -> new ArrayList<>()).add(i);
        }
        List<Call> calls = new ArrayList<>();
        byTopic.forEach((topic, bySlot) -> {
            Shared shared = new Shared(topic, items, calls);
            bySlot.forEach((slot, indexes) -> {
                for (int from = 0; from < indexes.size(); from += ScriptProducer.MESSAGES_PER_CALL) {
                    List<Integer> chunk = indexes.subList(from,
                            Math.min(indexes.size(), from + ScriptProducer.MESSAGES_PER_CALL));
                    List<SendCall.Message> messages = messages(items, chunk);
                    if (sharing && !SendCall.controlled(topic.maxBacklogPerSlot(), topic.fifo(), messages)) {
                        shared.add(slot, chunk);
                    } else {
                        if (shared.holds(slot)) {
                            // the slot's earlier messages wait in the shared call: it goes first
                            shared.close();
                        }
                        calls.add(new Call(List.of(slot), call(topic, slot, messages), List.copyOf(chunk)));
                    }
                }
            });
            shared.close();
        });
        return calls;
    }

    /** A call of one slot: send.lua, or send_controlled.lua where its messages or its topic need it. */
    private SendCall call(TopicDefinition topic, SlotKeys slot, List<SendCall.Message> messages) {
        return SendCall.of(topic.type(), keys.wakeChannel(topic.name()), slot.slot(), topic.maxBacklogPerSlot(),
                topic.lateTolerance().toMillis(), topic.fifo(), messages);
    }

    private static List<SendCall.Message> messages(List<Item> items, List<Integer> indexes) {
        List<SendCall.Message> messages = new ArrayList<>(indexes.size());
        for (int index : indexes) {
            messages.add(items.get(index).message());
        }
        return messages;
    }

    /** The calls that several slots of a topic share, filled one after another. */
    private final class Shared {

        private final TopicDefinition topic;
        private final List<Item> items;
        private final List<Call> calls;
        private final List<SlotKeys> slots = new ArrayList<>();
        private final List<SendCall.Share> shares = new ArrayList<>();
        private final List<Integer> indexes = new ArrayList<>();

        Shared(TopicDefinition topic, List<Item> items, List<Call> calls) {
            this.topic = topic;
            this.items = items;
            this.calls = calls;
        }

        /** Adds a slot's messages, in order, to the call being filled, and to the next when that one is full. */
        void add(SlotKeys slot, List<Integer> chunk) {
            int at = 0;
            while (at < chunk.size()) {
                if (indexes.size() == ScriptProducer.MESSAGES_PER_CALL) {
                    close();
                }
                int taken = Math.min(chunk.size() - at, ScriptProducer.MESSAGES_PER_CALL - indexes.size());
                int last = slots.size() - 1;
                if (last >= 0 && slots.get(last).equals(slot)) {
                    // the slot's next chunk, in the same call: its share grows
                    shares.set(last, new SendCall.Share(slot.slot(), shares.get(last).messages() + taken));
                } else {
                    slots.add(slot);
                    shares.add(new SendCall.Share(slot.slot(), taken));
                }
                indexes.addAll(chunk.subList(at, at + taken));
                at += taken;
            }
        }

        /** Whether the call being filled holds messages of {@code slot}. */
        boolean holds(SlotKeys slot) {
            return slots.contains(slot);
        }

        /** Ends the call being filled, if it holds any message. */
        void close() {
            if (indexes.isEmpty()) {
                return;
            }
            List<SendCall.Message> messages = messages(items, indexes);
            SendCall call = slots.size() == 1 ? call(topic, slots.get(0), messages)
                    : SendCall.ofSlots(topic.type(), keys.wakeChannel(topic.name()), List.copyOf(shares),
                    topic.lateTolerance().toMillis(), messages);
            calls.add(new Call(List.copyOf(slots), call, List.copyOf(indexes)));
            slots.clear();
            shares.clear();
            indexes.clear();
        }
    }
}
