package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.Script;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.testsupport.RedisCluster;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared real Redis Cluster (3 masters, 3 replicas) and what every cluster test uses on it. Each test uses
 * its own topic names and deletes their keys first, so the shared cluster is never flushed. Every rmq script is
 * loaded on every master before and after each class, so no test depends on which scripts earlier classes
 * happened to leave cached where.
 */
abstract class ClusterFixture {

    static final int SLOTS = 16;
    static final Duration PATIENCE = Duration.ofSeconds(30);

    static RedisCluster cluster;
    static RedissonClient redisson;

    @BeforeAll
    static void connect() {
        cluster = RedisTestServers.sharedCluster();
        loadScriptsOnEveryMaster();
        redisson = Fixtures.redisson(cluster);
    }

    @AfterAll
    static void disconnect() {
        try {
            if (redisson != null) {
                redisson.shutdown();
            }
        } finally {
            // leave the shared cluster with every script cached everywhere, whatever a test flushed
            loadScriptsOnEveryMaster();
        }
    }

    /** A topic of {@link #SLOTS} slots, spread over all three masters, with whatever an earlier run left deleted. */
    static TopicDefinition freshTopic(String name, TopicType type) {
        TopicDefinition topic = Fixtures.topic(name, type, SLOTS);
        deleteSlotKeys(topic);
        assertSlotsSpreadOverAllMasters(topic);
        return topic;
    }

    static void loadScriptsOnEveryMaster() {
        for (RedisServer master : cluster.masters()) {
            for (Script script : Script.values()) {
                assertThat(master.command("SCRIPT", "LOAD", script.source())).as("SHA-1 of %s", script)
                        .isEqualTo(script.sha());
            }
        }
    }

    static void flushScriptsOnEveryMaster() {
        for (RedisServer master : cluster.masters()) {
            Fixtures.forgetScripts(master);
        }
    }

    static String flowTopic(TopicType type) {
        return "cluster-flow-" + shortName(type);
    }

    static String drainTopic(TopicType type) {
        return "cluster-rest-" + shortName(type);
    }

    static String shortName(TopicType type) {
        return switch (type) {
            case RANGE_MERGE -> "range";
            case PRIORITY -> "priority";
            case FIXED_TIME -> "fixed";
        };
    }

    static MessageRef ref(String topic, String key) {
        return MessageRef.of(topic, key);
    }

    /** value: the time range in ms, the priority, or the fixed time in epoch ms. */
    static OutgoingMessage message(TopicDefinition topic, String key, String payload, long value) {
        OutgoingMessage message = switch (topic.type()) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofMillis(value));
            case PRIORITY -> OutgoingMessage.priority(topic.name(), payload, value);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), payload, Instant.ofEpochMilli(value));
        };
        return message.withKey(key).withHeader("key", key);
    }

    static long redisTimeMs() {
        return Fixtures.redisTimeMs(cluster.masters().get(0));
    }

    static RedisServer masterOf(SlotKeys keys) {
        return cluster.masterForSlot(cluster.keySlot(keys.store()));
    }

    static void assertSlotsSpreadOverAllMasters(TopicDefinition topic) {
        Set<Integer> ports = new HashSet<>();
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            ports.add(masterOf(new KeyLayout("").slot(topic.name(), slot)).port());
        }
        assertThat(ports).as("masters holding slots of %s", topic.name()).hasSize(3);
    }

    /** Removes whatever an earlier run in this JVM left in the topic's keys; touches nothing else. */
    static void deleteSlotKeys(TopicDefinition topic) {
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            List<String> command = new ArrayList<>(List.of("DEL"));
            keys.asScriptKeys().forEach(k -> command.add((String) k));
            masterOf(keys).command(command.toArray(String[]::new));
        }
    }

    /** Sum over the topic's slots of ZCARD or HLEN of each message key, read on the master of each slot. */
    static Map<String, Long> sizes(TopicDefinition topic) {
        Map<String, Long> sizes = new TreeMap<>();
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            RedisServer master = masterOf(keys);
            sizes.merge("store", (Long) master.command("ZCARD", keys.store()), Long::sum);
            sizes.merge("body", (Long) master.command("HLEN", keys.body()), Long::sum);
            sizes.merge("prepare", (Long) master.command("ZCARD", keys.prepare()), Long::sum);
            sizes.merge("inflight", (Long) master.command("HLEN", keys.inflight()), Long::sum);
            sizes.merge("delayed", (Long) master.command("ZCARD", keys.delayed()), Long::sum);
            sizes.merge("parked", (Long) master.command("HLEN", keys.parked()), Long::sum);
            sizes.merge("expiry", (Long) master.command("ZCARD", keys.expiry()), Long::sum);
            sizes.merge("dead", (Long) master.command("ZCARD", keys.dead()), Long::sum);
            sizes.merge("deadbody", (Long) master.command("HLEN", keys.deadBody()), Long::sum);
        }
        return sizes;
    }

    /**
     * Every message key of every slot is empty, checked on the slot's master (another master would answer
     * MOVED, which fails the command), and no master holds any key of the topic but the wake hints, which expire.
     */
    static void assertNothingLeftBehind(TopicDefinition topic) {
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys keys = new KeyLayout("").slot(topic.name(), slot);
            RedisServer master = masterOf(keys);
            assertThat(master.command("ZCARD", keys.store())).as("ZCARD %s", keys.store()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.body())).as("HLEN %s", keys.body()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.prepare())).as("ZCARD %s", keys.prepare()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.inflight())).as("HLEN %s", keys.inflight()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.delayed())).as("ZCARD %s", keys.delayed()).isEqualTo(0L);
            assertThat(master.command("ZCARD", keys.dead())).as("ZCARD %s", keys.dead()).isEqualTo(0L);
            assertThat(master.command("HLEN", keys.deadBody())).as("HLEN %s", keys.deadBody()).isEqualTo(0L);
            assertThat(master.command("EXISTS", keys.store(), keys.body(), keys.prepare(), keys.inflight(),
                    keys.delayed(), keys.dead(), keys.deadBody(), keys.parked(), keys.expiry(), keys.paused()))
                    .as("keys of slot %d that still exist", slot).isEqualTo(0L);
        }
        for (RedisServer master : cluster.masters()) {
            @SuppressWarnings("unchecked")
            List<Object> left = (List<Object>) master.command("KEYS", "*" + topic.name() + "_*");
            // only keys that expire by themselves may remain: an idle consumer's wake time, a batch call's reply, an
            // at-most-once batch's hold
            assertThat(left).as("keys of %s left on %s", topic.name(), master).allSatisfy(key -> {
                assertThat((String) key).matches("rmq:(wake|call|hold)\\{" + topic.name() + "_\\d+}.*");
                assertThat((Long) master.command("PTTL", (String) key)).as("PTTL %s", key).isPositive();
            });
        }
    }

}
