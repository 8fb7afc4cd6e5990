package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.Names;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicBuilder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.TopicZones;
import dev.rmq.topic.ZoneRouting;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Configuration of rmq, under the {@code rmq} prefix. Values are checked when they are bound, with the
 * messages of rmq-core, so a bad definition stops start-up and names the property. A topic's keys and the
 * listeners' defaults are left null when not set: rmq-core's builders hold their defaults, and what is set is
 * copied onto them.
 *
 * @param namespace      A name in every Redis key's hash tag (rmq:body{ns:orders_3}), so that several applications
 *                       can share one Redis. Empty for none.
 * @param keyPrefix      What every Redis key of rmq starts with, before a colon: rmq by default, so that SCAN rmq:*
 *                       finds them all. Empty for the key names of rmq before the prefix (orders_3, body{orders_3});
 *                       with a prefix, the client moves what it finds under those names when it starts.
 * @param maxPayloadSize Largest message (payload plus headers) that a send accepts.
 * @param topics         Topics by name, e.g. rmq.topics.price-change.type=RANGE_MERGE, with the keys of
 *                       rmq.topics.*: type is required, and what is not set takes rmq-core's default. A YAML list of
 *                       entries with a name works too.
 * @param listener       Defaults of the @RmqListener containers.
 * @param producer       The autowirable RmqProducer.
 * @param redis          Redis connection, used when the application defines no RedissonClient. When none of
 *                       address, nodes and sentinel.master is set, spring.data.redis.* is used.
 * @param zookeeper      ZooKeeper connection, used when the application defines no CuratorFramework, and the root
 *                       of rmq's znodes either way.
 * @param metrics        Micrometer metrics.
 * @param zone           The availability zone this application runs in, for topics whose slots are spread over
 *                       zones: its producer sends to that zone's slots, and its consumers take them first. None by
 *                       default.
 * @param puller         An RmqPuller bean, for code that pulls messages instead of listening.
 * @param payload        The keys of topics whose payloads are encrypted.
 */
@ConfigurationProperties("rmq")
public record RmqProperties(@DefaultValue("") String namespace,
                            @DefaultValue("rmq") String keyPrefix,
                            @DefaultValue("1MB") DataSize maxPayloadSize,
                            Map<String, Topic> topics,
                            @DefaultValue Listener listener,
                            @DefaultValue RmqProducerProperties producer,
                            @DefaultValue @NestedConfigurationProperty RmqRedisProperties redis,
                            @DefaultValue ZooKeeper zookeeper,
                            @DefaultValue Metrics metrics,
                            @Nullable String zone,
                            @DefaultValue Puller puller,
                            @DefaultValue RmqPayloadProperties payload) {

    public RmqProperties {
        if (zone != null && zone.isBlank()) {
            zone = null;
        }
        if (zone != null) {
            Names.check("rmq.zone", zone);
        }
        if (!namespace.isEmpty()) {
            Names.check("namespace", namespace);
        }
        if (!keyPrefix.isEmpty()) {
            Names.check("rmq.key-prefix", keyPrefix);
        }
        if (maxPayloadSize.toBytes() < 1 || maxPayloadSize.toBytes() > RmqClient.MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("rmq.max-payload-size must be between 1B and "
                    + DataSize.ofBytes(RmqClient.MAX_PAYLOAD_LIMIT).toMegabytes() + "MB, was " + maxPayloadSize);
        }
        // In the order of the configuration, which is the order the endpoint and the logs show.
        topics = topics == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(topics));
        // Each definition is built here, so a bad one fails binding with rmq-core's own message.
        topics.forEach((key, topic) -> topic.toDefinition(key));
    }

    /**
     * One topic. Its name is the map key unless {@code name} is given (as it must be in a YAML list).
     *
     * @param name         Name of the topic, when it differs from the map key (required in a YAML list).
     * @param type         Message type: RANGE_MERGE, PRIORITY or FIXED_TIME.
     * @param slotAmount   Number of slots, a power of two in 1..16384. Every instance must use the same.
     * @param leaseTimeout How long a consumer may hold a message before it is recovered as failed.
     * @param maxRetries   Retries after the first attempt before a message goes to the dead queue.
     * @param backoff      How long a failed message waits before its next attempt.
     * @param deadCapacity Dead messages kept per slot, the oldest dropped beyond it. 0 keeps all.
     * @param maxReleases  Releases (hand-backs without an attempt) a message may have; one more sends it to the dead
     *                     queue (reason "releases_spent"). 0 for no cap.
     * @param ttl          How long a message may wait before it is delivered; 0 for ever. A send may set its own.
     *                     A message still waiting (or waiting for a retry) when it runs out never reaches a handler.
     * @param expiry       What becomes of a message whose ttl ran out: DROP, or DEAD (the dead queue, reason
     *                     "expired"). Either way it is counted in rmq.expired.
     * @param maxBacklog   Most messages that may wait in the topic (due, delayed, waiting for a retry, or parked; not
     *                     those in flight), 0 for no cap; a send that would add one more is refused
     *                     (BacklogFullException), a send that merges is not. Split evenly over the slots.
     * @param delivery     AT_LEAST_ONCE, or AT_MOST_ONCE: a message leaves Redis when taken, with no lease and no
     *                     retry, and a failed handler loses it.
     * @param rateLimit    Most deliveries per second over every consumer of the topic in every application; 0 for
     *                     no limit.
     * @param lateTolerance For FIXED_TIME topics, how far behind the Redis clock a fixed time may lie and still be
     *                     taken, delivered at once and reported late; a time further behind is refused.
     * @param fifo         Whether messages of one priority, or due in one millisecond, are consumed in the order
     *                     first sent (a little Redis CPU per send); otherwise by key.
     * @param repeatedKey  What a send of a key already known to its slot does: REPLACE (merge, the latest content
     *                     winning), KEEP_FIRST (leave the waiting message as it is), DEBOUNCE (merge, and move the
     *                     due time to the latest send's; not for PRIORITY topics) or THROTTLE (refuse the key for
     *                     throttle-window after it was accepted, even once consumed). A send may choose its own.
     * @param throttleWindow With repeated-key THROTTLE, how long a key accepted stays refused; required there.
     * @param zones        Availability zones the slots are spread over (slot s in zone s mod n); none by default.
     * @param zoneRouting  With zones, where a producer sends: SENDER_ZONE (its own zone's slots; a key sent from two
     *                     zones is two messages) or BASIS (by the slot basis alone, one message per key).
     * @param concurrency  Worker threads of this topic's listeners. Unset means rmq.listener.concurrency.
     * @param batchSize    Most messages one poll takes from a slot. Unset means rmq.listener.batch-size.
     * @param payload      How its payloads travel: their version, compression and encryption. Plain by default.
     */
    public record Topic(@Nullable String name,
                        @Nullable TopicType type,
                        @Nullable Integer slotAmount,
                        @Nullable Duration leaseTimeout,
                        @Nullable Integer maxRetries,
                        @Nullable Backoff backoff,
                        @Nullable Integer deadCapacity,
                        @Nullable Integer maxReleases,
                        @Nullable Duration ttl,
                        @Nullable ExpiryAction expiry,
                        @Nullable Integer maxBacklog,
                        @Nullable DeliveryGuarantee delivery,
                        @Nullable Double rateLimit,
                        @Nullable Duration lateTolerance,
                        @Nullable Boolean fifo,
                        RepeatedKey.@Nullable Kind repeatedKey,
                        @Nullable Duration throttleWindow,
                        @Nullable List<String> zones,
                        @Nullable ZoneRouting zoneRouting,
                        @Nullable Integer concurrency,
                        @Nullable Integer batchSize,
                        RmqPayloadProperties.@Nullable TopicPayload payload) {

        public Topic {
            if (concurrency != null) {
                ConsumerSettings.DEFAULTS.withConcurrency(concurrency);
            }
            if (batchSize != null) {
                ConsumerSettings.DEFAULTS.withBatchSize(batchSize);
            }
        }

        /**
         * The validated definition; {@code key} is the name unless {@link #name()} is set. Only what is set is copied
         * onto the core's builder, which holds every default and checks every value.
         */
        public TopicDefinition toDefinition(String key) {
            String named = name != null && !name.isBlank() ? name : null;
            // A YAML list binds with the indexes as keys; an index must not silently become a topic name.
            if (named == null && key.chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("rmq.topics[" + key + "] needs a name: entries of a topic list must"
                        + " say 'name', or define the topics as a map (rmq.topics.<name>.type=...)");
            }
            TopicBuilder topic = TopicDefinition.builder().name(named != null ? named : key);
            PropertyMapper map = PropertyMapper.get();
            // type is required: without it, build() says the topic needs one
            map.from(type).to(topic::type);
            map.from(slotAmount).to(topic::slotAmount);
            map.from(leaseTimeout).to(topic::leaseTimeout);
            map.from(maxRetries).to(topic::maxRetries);
            map.from(backoff).as(Backoff::toPolicy).to(topic::backoff);
            map.from(deadCapacity).to(topic::deadCapacity);
            map.from(maxReleases).to(topic::maxReleases);
            map.from(ttl).to(topic::ttl);
            map.from(expiry).to(topic::expiry);
            map.from(maxBacklog).to(topic::maxBacklog);
            map.from(delivery).to(topic::delivery);
            map.from(rateLimit).to(topic::rateLimit);
            map.from(lateTolerance).to(topic::lateTolerance);
            map.from(fifo).to(topic::fifo);
            if (repeatedKey != null || throttleWindow != null) {
                if (repeatedKey == null) {
                    throw new IllegalArgumentException("rmq.topics." + key + ".throttle-window is for repeated-key"
                            + " THROTTLE, and repeated-key is not set");
                }
                topic.repeatedKey(RepeatedKey.of(repeatedKey, throttleWindow));
            }
            if (zones != null || zoneRouting != null) {
                List<String> names = zones == null ? List.of() : zones;
                topic.zones(TopicZones.of(names, zoneRouting == null ? TopicZones.DEFAULT_ROUTING : zoneRouting));
            }
            map.from(payload).as(RmqPayloadProperties.TopicPayload::toForm).to(topic::payloadForm);
            return topic.build();
        }
    }

    /**
     * Retry delay: {@code initial × multiplier^(attempt-1)}, capped at {@code max}, shortened by up to
     * {@code jitter}. What is not set keeps the default policy's value.
     *
     * @param initial    Delay after the first failed attempt.
     * @param multiplier Growth of the delay per attempt: 1 for a fixed delay, above 1 for an exponential one.
     * @param max        Longest delay.
     * @param jitter     Largest random fraction taken off a delay, in [0, 1).
     */
    public record Backoff(@Nullable Duration initial,
                          @Nullable Double multiplier,
                          @Nullable Duration max,
                          @Nullable Double jitter) {

        BackoffPolicy toPolicy() {
            BackoffPolicy defaults = BackoffPolicy.DEFAULT;
            return new BackoffPolicy(initial != null ? initial : defaults.initial(),
                    multiplier != null ? multiplier : defaults.multiplier(), max != null ? max : defaults.max(),
                    jitter != null ? jitter : defaults.jitter());
        }
    }

    /**
     * Defaults of the listener containers; a topic's own values and the annotation's win over them.
     *
     * @param autoStartup     Whether listener containers start with the application.
     * @param concurrency     Worker threads per listener container.
     * @param batchSize       Most messages one poll takes from a slot.
     * @param idlePoll        Longest time an idle slot waits between polls. A send that makes a message due
     *                        sooner wakes it at once.
     * @param shutdownTimeout The longest the listeners take to stop, whatever state Redis and ZooKeeper are in:
     *                        handlers finish, their messages are acknowledged and the slots given back. What is
     *                        not done by then is left to lease recovery. Capped by
     *                        spring.lifecycle.timeout-per-shutdown-phase, less 1 s.
     * @param slotOrder       How a worker that holds several slots chooses the one it polls next: MOST_URGENT
     *                        takes the highest priority or the earliest due time first, across its slots;
     *                        ROUND_ROBIN takes the slots in turn, a whole poll each, for the fewest calls to Redis
     *                        under a backlog spread over many slots.
     * @param notRetryableExceptions Exceptions that retrying cannot mend: a listener that throws one (or an
     *                        exception caused by one) sends its message to the dead queue at once. By default a
     *                        payload that cannot be read as the listener's type: PayloadCodecException,
     *                        MessageConversionException and MethodArgumentResolutionException.
     * @param threads         What threads run the listeners: AUTO follows spring.threads.virtual.enabled, VIRTUAL
     *                        asks for virtual threads, PLATFORM gives each worker a thread of its own. Virtual
     *                        threads need Java 21 or later; on Java 17 the listeners run on platform threads. An
     *                        Executor bean named rmqListenerExecutor wins over this setting.
     */
    public record Listener(@DefaultValue("true") boolean autoStartup,
                           @Nullable Integer concurrency,
                           @Nullable Integer batchSize,
                           @Nullable Duration idlePoll,
                           @Nullable Duration shutdownTimeout,
                           @Nullable SlotOrder slotOrder,
                           List<Class<? extends Throwable>> notRetryableExceptions,
                           @DefaultValue("auto") Threads threads) {

        /** What threads run the listeners. */
        public enum Threads {
            /** Virtual threads when spring.threads.virtual.enabled is true (and Java is 21 or later), else platform. */
            AUTO,
            /** A platform thread of its own for each worker. */
            PLATFORM,
            /** Virtual threads, on Java 21 or later. */
            VIRTUAL
        }

        /**
         * The exceptions not worth retrying when {@code not-retryable-exceptions} is not set: rmq-core's, and a
         * payload that Spring cannot convert to the listener's parameters.
         */
        public static final List<Class<? extends Throwable>> NOT_RETRYABLE = notRetryableByDefault();

        private static List<Class<? extends Throwable>> notRetryableByDefault() {
            List<Class<? extends Throwable>> classes = new ArrayList<>(RmqErrorHandler.NOT_RETRYABLE);
            classes.add(MessageConversionException.class);
            classes.add(MethodArgumentResolutionException.class);
            return List.copyOf(classes);
        }

        public Listener {
            consumerSettings(concurrency, batchSize, idlePoll, shutdownTimeout, slotOrder);
            notRetryableExceptions = notRetryableExceptions == null ? NOT_RETRYABLE : List.copyOf(notRetryableExceptions);
        }

        /** These values as core consumer settings: what is set, over the core's defaults. */
        public ConsumerSettings toConsumerSettings() {
            return consumerSettings(concurrency, batchSize, idlePoll, shutdownTimeout, slotOrder);
        }

        private static ConsumerSettings consumerSettings(@Nullable Integer concurrency, @Nullable Integer batchSize,
                                                         @Nullable Duration idlePoll,
                                                         @Nullable Duration shutdownTimeout,
                                                         @Nullable SlotOrder slotOrder) {
            PropertyMapper map = PropertyMapper.get();
            ConsumerSettings settings = ConsumerSettings.DEFAULTS;
            settings = map.from(concurrency).to(settings, ConsumerSettings::withConcurrency);
            settings = map.from(batchSize).to(settings, ConsumerSettings::withBatchSize);
            settings = map.from(idlePoll).to(settings, ConsumerSettings::withIdlePoll);
            settings = map.from(slotOrder).to(settings, ConsumerSettings::withSlotOrder);
            return map.from(shutdownTimeout).to(settings, ConsumerSettings::withShutdownTimeout);
        }
    }

    /**
     * The ZooKeeper connection. With a connect string or a {@code CuratorFramework} bean, ZooKeeper gives
     * each slot to one worker of the whole cluster; without either, rmq assigns slots locally.
     *
     * @param connectString     ZooKeeper ensemble, as host1:2181,host2:2181.
     * @param root              Znode under which rmq keeps its state (topic definitions, members, plan and
     *                          owners), also on an application's own CuratorFramework. An absolute path below /.
     * @param sessionTimeout    ZooKeeper session timeout. A dead worker's slots move after about this long.
     * @param connectionTimeout How long start-up waits for the first connection.
     * @param digest            user:password for digest authentication. The znodes rmq creates are then
     *                          readable and writable only by that user.
     */
    public record ZooKeeper(@Nullable String connectString,
                            @DefaultValue("/rmq") String root,
                            @DefaultValue("30s") Duration sessionTimeout,
                            @DefaultValue("15s") Duration connectionTimeout,
                            @Nullable String digest) {

        public ZooKeeper {
            // "/" itself is refused: rmq's topics/ would sit beside every other application's znodes.
            if (!root.startsWith("/") || root.length() < 2 || root.endsWith("/") || root.contains("//")) {
                throw new IllegalArgumentException("rmq.zookeeper.root must be an absolute znode path below /, like"
                        + " /rmq, without a trailing slash; was '" + root + "'");
            }
            if (digest != null && !digest.isBlank() && digest.indexOf(':') < 1) {
                throw new IllegalArgumentException("rmq.zookeeper.digest must be 'user:password'");
            }
        }
    }

    /**
     * Micrometer metrics.
     *
     * @param sizeCacheTtl How long the backlog, in-flight and dead gauges reuse one reading of Redis, so that
     *                     frequent scrapes do not query every slot each time.
     */
    public record Metrics(@DefaultValue("5s") Duration sizeCacheTtl) {
    }

    /**
     * An {@code RmqPuller<String>} bean over some topics, each message's payload as its JSON text, for code that takes
     * messages when it is ready instead of listening. It is a consumer like a listener container: with ZooKeeper it
     * takes only the slots assigned to it.
     *
     * @param topics       The topics it takes from. Empty (the default) defines no puller.
     * @param id           Its id, unique among the application's pullers and listener containers.
     * @param idlePoll     The longest a slot goes unpolled while a poll waits and no send wakes it.
     * @param closeTimeout The longest its close takes to hand back what was not ended and give its slots back.
     * @param slotOrder    How it chooses among the slots it holds of a topic: MOST_URGENT takes the highest
     *                     priority or the earliest due time first, across its slots; ROUND_ROBIN takes the slots in
     *                     turn, for the fewest calls to Redis under a backlog spread over many slots.
     */
    public record Puller(List<String> topics,
                         @DefaultValue("puller") String id,
                         @Nullable Duration idlePoll,
                         @Nullable Duration closeTimeout,
                         @Nullable SlotOrder slotOrder) {

        public Puller {
            topics = topics == null ? List.of() : List.copyOf(topics);
            PropertyMapper map = PropertyMapper.get();
            map.from(idlePoll).to(ConsumerSettings.DEFAULTS::withIdlePoll);
            map.from(closeTimeout).to(ConsumerSettings.DEFAULTS::withShutdownTimeout);
        }
    }
}
