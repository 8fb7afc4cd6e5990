package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.embedded.RedisServer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Every slot of a topic keeps its keys in one cluster hash slot, and a topic's slots spread over all masters. */
class ClusterKeyLayoutTests extends ClusterFixture {

    @Test
    void slotsOfEveryTopicTypeSpreadOverAllThreeMastersWithAllItsKeysInOneClusterSlot() {
        Set<Integer> masterPorts = cluster.masters().stream().map(RedisServer::port).collect(Collectors.toSet());
        assertThat(masterPorts).hasSize(3);
        List<TopicDefinition> topics = new ArrayList<>();
        for (TopicType type : TopicType.values()) {
            topics.add(Fixtures.topic(flowTopic(type), type, SLOTS));
            topics.add(Fixtures.topic(drainTopic(type), type, SLOTS));
        }
        RmqClient rmq = RmqClient.builder(redisson).topics(topics).build();
        KeyLayout layout = new KeyLayout("");

        for (TopicDefinition topic : topics) {
            Map<Integer, Integer> slotsPerMaster = new TreeMap<>();
            for (int i = 0; i < topic.slotAmount(); i++) {
                SlotKeys keys = layout.slot(topic.name(), i);
                String tag = topic.name() + "_" + i;
                // the order of lib.lua's KEYS block
                assertThat(keys.asScriptKeys()).containsExactly("rmq:{" + tag + "}", "rmq:body{" + tag + "}",
                        "rmq:prepare{" + tag + "}", "rmq:inflight{" + tag + "}", "rmq:delayed{" + tag + "}",
                        "rmq:dead{" + tag + "}", "rmq:deadbody{" + tag + "}", "rmq:wake{" + tag + "}",
                        "rmq:owner{" + tag + "}", "rmq:parked{" + tag + "}", "rmq:expiry{" + tag + "}",
                        "rmq:paused{" + tag + "}", "rmq:hold{" + tag + "}", "rmq:retry{" + tag + "}",
                        "rmq:cancelled{" + tag + "}", "rmq:throttled{" + tag + "}", "rmq:schedules{" + tag + "}",
                        "rmq:progress{" + tag + "}");
                // the names without the prefix hash to the same Cluster slot, so a migration renames in place
                assertThat(cluster.keySlot(tag)).isEqualTo(cluster.keySlot(keys.store()));
                int clusterSlot = cluster.keySlot(keys.store());
                for (Object key : keys.asScriptKeys()) {
                    assertThat(cluster.keySlot((String) key))
                            .as("CLUSTER KEYSLOT %s (slot %d of %s, whose store key is in cluster slot %d)", key, i,
                                    topic.name(), clusterSlot)
                            .isEqualTo(clusterSlot);
                }
                slotsPerMaster.merge(cluster.masterForSlot(clusterSlot).port(), 1, Integer::sum);
            }
            assertThat(slotsPerMaster.keySet()).as("masters holding slots of %s: %s", topic.name(), slotsPerMaster)
                    .isEqualTo(masterPorts);
        }
    }

    @Test
    void aClientMovesTheKeysOfTheNamesWithoutAPrefixOnEveryMasterInPlace() {
        TopicDefinition topic = freshTopic("legacy-moves", TopicType.PRIORITY);
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys old = new KeyLayout(KeyLayout.LEGACY_PREFIX, "").slot(topic.name(), slot);
            List<String> command = new ArrayList<>(List.of("DEL"));
            old.asScriptKeys().forEach(k -> command.add((String) k));
            masterOf(old).command(command.toArray(String[]::new));
        }
        RmqClient earlier = RmqClient.builder(redisson).keyPrefix("").topic(topic).build();
        List<OutgoingMessage> sends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sends.add(message(topic, "k" + i, "p" + i, 100 + i));
        }
        earlier.producer().sendAll(sends);

        RmqClient current = RmqClient.builder(redisson).topic(topic).build();
        // its first call moves the keys, on each slot's master
        assertThat(current.inspector().counts(topic.name()).total().dueNow()).isEqualTo(200);
        Map<String, Long> sizes = sizes(topic);
        assertThat(sizes).containsEntry("store", 200L).containsEntry("body", 200L);
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            SlotKeys old = new KeyLayout(KeyLayout.LEGACY_PREFIX, "").slot(topic.name(), slot);
            assertThat(masterOf(old).command("EXISTS", old.store(), old.body()))
                    .as("the names without a prefix of slot %d", slot).isEqualTo(0L);
        }
    }
}
