package dev.rmq;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.producer.ScriptProducer;
import dev.rmq.internal.producer.SendLimits;
import dev.rmq.producer.Durability;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.events.RmqEventListener;
import dev.rmq.internal.observation.GuardedMetrics;
import dev.rmq.internal.observation.Observations;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.KeyMigration;
import dev.rmq.internal.redis.LegacyKeys;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.redis.OutageWatches;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What a client's consumers are built from: the parts {@link RmqClient} makes once and its builders share, the
 * availability zone it runs in (null for none), and its observations (null without an ObservationRegistry).
 */
record ClientParts(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                   Payloads payloads, RmqMetrics metrics, RmqEventListener events, OutageWatches outages,
                   @Nullable String zone, @Nullable Observations observations) {

    /** The client's own logger: the parts are made for it. */
    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    /**
     * Makes the parts from the builder's settings. Nothing goes to Redis yet: its first call moves what an earlier
     * version of rmq left under the names without a prefix.
     */
    static ClientParts assemble(RmqClient.Builder b) {
        TopicRegistry topics = TopicRegistry.of(b.topics);
        KeyLayout keys = new KeyLayout(b.keyPrefix, b.namespace);
        // every call waits for what an earlier version of rmq left under the names without a prefix to move
        KeyMigration migration = new KeyMigration(new LegacyKeys(b.redisson, keys), List.copyOf(topics.all()));
        Payloads payloads = Payloads.of(b.codec != null ? b.codec : new JsonPayloadCodec(), topics, b.keyRing,
                b.upcasters);
        payloads.describe(topics.all()).forEach(line -> log.info("rmq {}", line));
        // the application's own code, called after the work it counts: one that throws must not undo that work
        RmqMetrics metrics = GuardedMetrics.of(b.metrics);
        topics.all().forEach(metrics::topicDefined);
        ScriptRunner scripts = new ScriptRunner(b.redisson, b.scriptMode == ScriptMode.FUNCTIONS, migration,
                keys);
        // events to the application's listener, then to the journal
        RmqEventListener events = b.journal == null ? b.events : RmqEventListener.both(b.events, b.journal);
        return new ClientParts(b.redisson, topics, keys, scripts, payloads, metrics, events,
                new OutageWatches(b.outageThreshold), b.zone,
                b.observationRegistry == null ? null : new Observations(b.observationRegistry));
    }

    /** The producer's own sends, which the journal, a send hold and observations wrap; it logs to {@code log}. */
    ScriptProducer sends(RmqClient.Builder b, Logger log) {
        return new ScriptProducer(topics, keys, scripts, payloads, new SendLimits(b.maxPayloadBytes, b.sendBufferBytes),
                metrics, Durability.MASTER_ONLY, producerOutages(log), b.zone);
    }

    /** A watch of the producer's calls to Redis, whose outages are logged and counted. */
    OutageWatch producerOutages(Logger log) {
        return outages.watch("producer", "sends fail or wait until it does; a send whose outcome is unknown may be"
                + " sent again, it merges while it waits", log, length -> metrics.redisOutage("producer", null, length));
    }

    /** A watch of a consumer's calls to Redis, whose outages are logged and counted against {@code topic}. */
    OutageWatch consumerOutages(String subject, String topic, String whatHappens, Logger log) {
        return outages.watch(subject + " of topic " + topic, whatHappens, log,
                length -> metrics.redisOutage("consumer", topic, length));
    }
}
