package dev.rmq;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.redis.KeyLayout;
import dev.rmq.redis.ScriptRunner;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.RedissonClient;

/**
 * What the producer, the dead queue and the consumer containers of one {@link RmqClient} share.
 * Built by {@link RmqClient}; applications use the client rather than this.
 *
 * @param redisson        the Redis connection
 * @param topics          the defined topics
 * @param keys            the key layout (namespace)
 * @param scripts         runs the Lua scripts
 * @param codec           the payload codec
 * @param maxPayloadBytes the largest accepted envelope (payload plus headers)
 * @param metrics         receives what the producer and consumers do
 */
public record RmqContext(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                         PayloadCodec codec, int maxPayloadBytes, RmqMetrics metrics) {
}
