package dev.rmq.internal.admin;

import dev.rmq.admin.PauseState;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Pause and resume on the slots' {@code paused} keys, each a batch of one command per slot (one round trip per
 * Redis node). A resume also publishes every slot on the topic's wake channel, so that idle consumers poll at once.
 */
public final class RedisAdmin implements RmqAdmin {

    private static final Logger log = LoggerFactory.getLogger(RedisAdmin.class);

    private final RedissonClient redisson;
    private final TopicRegistry topics;
    private final KeyLayout keys;

    public RedisAdmin(RedissonClient redisson, TopicRegistry topics, KeyLayout keys) {
        this.redisson = redisson;
        this.topics = topics;
        this.keys = keys;
    }

    @Override
    public CompletionStage<PauseState> pauseAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).setAsync("1");
        }
        return batch.executeAsync().thenCompose(done -> pauseStateAsync(topic))
                .whenComplete((state, error) -> logChange("paused", definition, state, error));
    }

    @Override
    public CompletionStage<PauseState> resumeAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).deleteAsync();
        }
        // the wakes go after every flag is gone: in one batch, a wake could reach a consumer before another node
        // deleted its slot's flag, and that slot would sleep out its idle poll still paused
        return batch.executeAsync().thenCompose(done -> {
            RBatch wakes = redisson.createBatch(BatchOptions.defaults());
            for (int slot = 0; slot < definition.slotAmount(); slot++) {
                wakes.getTopic(keys.wakeChannel(definition.name()), StringCodec.INSTANCE).publishAsync(String.valueOf(slot));
            }
            return wakes.executeAsync();
        }).thenCompose(done -> pauseStateAsync(topic))
                .whenComplete((state, error) -> logChange("resumed", definition, state, error));
    }

    @Override
    public CompletionStage<PauseState> pauseStateAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        List<RFuture<Boolean>> flags = new ArrayList<>(definition.slotAmount());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            flags.add(batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).isExistsAsync());
        }
        return batch.executeAsync().thenApply(done -> {
            int paused = 0;
            for (RFuture<Boolean> flag : flags) {
                paused += flag.toCompletableFuture().join() ? 1 : 0;
            }
            return new PauseState(definition.name(), paused, definition.slotAmount());
        });
    }

    private SlotKeys slotKeys(TopicDefinition topic, int slot) {
        return keys.slot(topic.name(), slot);
    }

    private static void logChange(String what, TopicDefinition topic, PauseState state, Throwable error) {
        if (error != null) {
            log.warn("topic {} could not be {} completely; pause state unknown, repeat the call: {}", topic.name(), what,
                    error.toString());
        } else if (state.partly()) {
            log.warn("topic {} {} only in part: {}; repeat the call", topic.name(), what, state.describe());
        } else {
            log.info("topic {} {} for every consumer ({} slots)", topic.name(), what, topic.slotAmount());
        }
    }
}
