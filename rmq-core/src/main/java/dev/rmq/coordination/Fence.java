package dev.rmq.coordination;

import dev.rmq.RmqContext;
import dev.rmq.redis.Futures;
import dev.rmq.redis.Script;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The fencing token in a slot's {@code owner} key, which every poll, ack and lease extension checks. */
final class Fence {

    /**
     * What taking a slot found.
     *
     * @param previousToken the token of an owner that never released the slot; empty after a clean release
     * @param holdOff       how long the latest lease in the slot still runs
     */
    record Taken(String previousToken, Duration holdOff) {
    }

    private final RmqContext context;

    Fence(RmqContext context) {
        this.context = context;
    }

    /** Writes {@code token} as the slot's owner, which fences out whoever held it before. */
    Taken take(TopicDefinition topic, int slot, String token) {
        List<Object> reply = Futures.joinBounded(context.scripts().list(Script.FENCE, keys(topic, slot), "take", token));
        return new Taken(new String((byte[]) reply.get(0), StandardCharsets.UTF_8), Duration.ofMillis((Long) reply.get(1)));
    }

    /** Clears the owner, unless another owner took the slot meanwhile. */
    void give(TopicDefinition topic, int slot, String token) {
        Futures.joinBounded(context.scripts().integer(Script.FENCE, keys(topic, slot), "give", token));
    }

    private SlotKeys keys(TopicDefinition topic, int slot) {
        return context.keys().slot(topic.name(), slot);
    }
}
