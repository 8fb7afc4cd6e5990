package dev.rmq.cluster;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.embedded.RedisServer;
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
                assertThat(keys.asScriptKeys()).containsExactly(tag, "body{" + tag + "}", "prepare{" + tag + "}",
                        "inflight{" + tag + "}", "delayed{" + tag + "}", "dead{" + tag + "}", "deadbody{" + tag + "}",
                        "wake{" + tag + "}", "owner{" + tag + "}", "parked{" + tag + "}", "expiry{" + tag + "}",
                        "paused{" + tag + "}", "hold{" + tag + "}",
                        "retry{" + tag + "}", "cancelled{" + tag + "}", "throttled{" + tag + "}",
                        "schedules{" + tag + "}");
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
}
