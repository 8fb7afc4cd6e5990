package dev.rmq.metrics;

import dev.rmq.RmqContext;
import dev.rmq.redis.Futures;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;

/** Reads the sizes of every slot of a topic in one pipeline (three ZCARDs a slot). */
public final class TopicInspector {

    private final RmqContext context;

    public TopicInspector(RmqContext context) {
        this.context = context;
    }

    public List<SlotStats> slots(String topic) {
        TopicDefinition definition = context.topics().require(topic);
        return read(definition, 0, definition.slotAmount());
    }

    /** The sizes of one slot, without reading the others. */
    public SlotStats slot(String topic, int slot) {
        TopicDefinition definition = context.topics().require(topic);
        return read(definition, definition.requireSlot(slot), slot + 1).get(0);
    }

    /** The sums over all slots of a topic. */
    public SlotStats totals(String topic) {
        return SlotStats.sum(slots(topic));
    }

    /** Slots {@code from} (inclusive) to {@code to} (exclusive), in one round trip per Redis node. */
    private List<SlotStats> read(TopicDefinition definition, int from, int to) {
        RBatch batch = context.redisson().createBatch(BatchOptions.defaults());
        for (int slot = from; slot < to; slot++) {
            SlotKeys keys = context.keys().slot(definition.name(), slot);
            batch.getScoredSortedSet(keys.store(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(keys.retry(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(keys.prepare(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(keys.dead(), StringCodec.INSTANCE).sizeAsync();
        }
        List<?> sizes = Futures.join(batch.executeAsync()).getResponses();
        List<SlotStats> stats = new ArrayList<>(to - from);
        for (int slot = from; slot < to; slot++) {
            int at = (slot - from) * 4;
            stats.add(new SlotStats(slot, size(sizes.get(at)) + size(sizes.get(at + 1)), size(sizes.get(at + 2)),
                    size(sizes.get(at + 3))));
        }
        return stats;
    }

    private static long size(Object reply) {
        return ((Number) reply).longValue();
    }
}
