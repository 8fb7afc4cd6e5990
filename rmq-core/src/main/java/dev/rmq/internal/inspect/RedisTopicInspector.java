package dev.rmq.internal.inspect;

import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.metrics.SlotStats;
import dev.rmq.metrics.TopicInspector;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;

/** Reads the sizes of slots in one pipeline: six commands a slot. */
public final class RedisTopicInspector implements TopicInspector {

    private final RedissonClient redisson;
    private final TopicRegistry topics;
    private final KeyLayout keys;

    public RedisTopicInspector(RedissonClient redisson, TopicRegistry topics, KeyLayout keys) {
        this.redisson = redisson;
        this.topics = topics;
        this.keys = keys;
    }

    @Override
    public List<SlotStats> slots(String topic) {
        TopicDefinition definition = topics.require(topic);
        return read(definition, 0, definition.slotAmount());
    }

    @Override
    public SlotStats slot(String topic, int slot) {
        TopicDefinition definition = topics.require(topic);
        return read(definition, definition.requireSlot(slot), slot + 1).get(0);
    }

    /** Slots {@code from} (inclusive) to {@code to} (exclusive), in one round trip per Redis node. */
    private List<SlotStats> read(TopicDefinition definition, int from, int to) {
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = from; slot < to; slot++) {
            SlotKeys slotKeys = keys.slot(definition.name(), slot);
            batch.getScoredSortedSet(slotKeys.store(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(slotKeys.delayed(), StringCodec.INSTANCE).sizeAsync();
            batch.getMap(slotKeys.parked(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(slotKeys.prepare(), StringCodec.INSTANCE).sizeAsync();
            batch.getScoredSortedSet(slotKeys.dead(), StringCodec.INSTANCE).sizeAsync();
            batch.getBucket(slotKeys.paused(), StringCodec.INSTANCE).isExistsAsync();
        }
        List<?> replies = Futures.join(batch.executeAsync()).getResponses();
        List<SlotStats> stats = new ArrayList<>(to - from);
        for (int slot = from; slot < to; slot++) {
            int at = (slot - from) * 6;
            stats.add(new SlotStats(slot, size(replies.get(at)) + size(replies.get(at + 1)) + size(replies.get(at + 2)),
                    size(replies.get(at + 3)), size(replies.get(at + 4)), Boolean.TRUE.equals(replies.get(at + 5))));
        }
        return stats;
    }

    private static long size(Object reply) {
        return ((Number) reply).longValue();
    }
}
