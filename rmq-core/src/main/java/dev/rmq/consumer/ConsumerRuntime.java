package dev.rmq.consumer;

import dev.rmq.RmqContext;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;

import java.lang.reflect.Type;

/** What the workers of one container share. */
record ConsumerRuntime<T>(RmqContext context, TopicDefinition topic, ConsumerSettings settings, Type payloadType,
                          RmqHandler<T> handler, SlotCalls calls) {

    RmqMetrics metrics() {
        return context.metrics();
    }

    SlotKeys keys(int slot) {
        return context.keys().slot(topic.name(), slot);
    }

    @SuppressWarnings("unchecked")
    T decodePayload(byte[] bytes) {
        return (T) context.codec().decode(bytes, payloadType);
    }
}
