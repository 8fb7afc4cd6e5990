package dev.rmq;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.observation.Observations;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatches;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.RedissonClient;

/**
 * What a client's consumers are built from: the parts {@link RmqClient} makes once and its builders share, the
 * availability zone it runs in (null for none), and its observations (null without an ObservationRegistry).
 */
record ClientParts(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                   PayloadCodec codec, RmqMetrics metrics, RmqEventListener events, OutageWatches outages,
                   String zone, Observations observations) {
}
