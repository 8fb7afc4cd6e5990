package dev.rmq.internal.coordination;

import dev.rmq.consumer.SlotFencing;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.FenceGiveCall;
import dev.rmq.internal.script.FenceTakeCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.topic.TopicDefinition;

import java.util.concurrent.CompletionStage;

/** Slot fencing on fence_take.lua and fence_give.lua: the token lives in the slot's {@code owner} key. */
public final class RedisSlotFencing implements SlotFencing {

    private final KeyLayout keys;
    private final ScriptRunner scripts;

    public RedisSlotFencing(KeyLayout keys, ScriptRunner scripts) {
        this.keys = keys;
        this.scripts = scripts;
    }

    @Override
    public CompletionStage<Taken> take(TopicDefinition topic, int slot, String token) {
        return scripts.run(keys.slot(topic.name(), slot), new FenceTakeCall(token));
    }

    @Override
    public CompletionStage<Boolean> give(TopicDefinition topic, int slot, String token) {
        return scripts.run(keys.slot(topic.name(), slot), new FenceGiveCall(token));
    }
}
