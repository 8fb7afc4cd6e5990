package dev.rmq;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.observation.Observations;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.redis.OutageWatches;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;

/**
 * What a client's consumers are built from: the parts {@link RmqClient} makes once and its builders share, the
 * availability zone it runs in (null for none), and its observations (null without an ObservationRegistry).
 */
record ClientParts(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                   Payloads payloads, RmqMetrics metrics, RmqEventListener events, OutageWatches outages,
                   @Nullable String zone, @Nullable Observations observations) {

    /** A watch of a consumer's calls to Redis, whose outages are logged and counted against {@code topic}. */
    OutageWatch consumerOutages(String subject, String topic, String whatHappens, Logger log) {
        return outages.watch(subject + " of topic " + topic, whatHappens, log,
                length -> metrics.redisOutage("consumer", topic, length));
    }
}
