package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Availability zones on a real ZooKeeper and Redis: a zone's slots go to the workers of that zone, move to the
 * other zone's workers when it has none left, and come back when one returns; producers send to their own zone.
 */
class ZoneAssignmentTests {

    private static final int SLOTS = 8;
    private static final TopicDefinition TOPIC = TopicDefinition.builder("zoned", TopicType.PRIORITY).slotAmount(SLOTS)
            .leaseTimeout(Duration.ofSeconds(3)).zones("a", "b").build();

    @RegisterExtension
    final CoordinationServers servers = new CoordinationServers();
    private final Map<String, String> consumedBy = new ConcurrentHashMap<>();


    @Test
    void aZonesSlotsGoToItsWorkersMoveAwayWhileItHasNoneAndComeBack() throws Exception {
        ZooKeeperNode a1 = node("a1", "a");
        ZooKeeperNode a2 = node("a2", "a");
        ZooKeeperNode b1 = node("b1", "b");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(owned(a1, a2)).isEqualTo(slotsOf("a"));
            assertThat(owned(b1)).isEqualTo(slotsOf("b"));
        });

        RedissonClient producerRedis = Fixtures.redisson(servers.redis());
        try (RmqClient fromA = RmqClient.builder(producerRedis).topic(TOPIC).zone("a").build()) {
            for (int i = 0; i < 40; i++) {
                fromA.producer().send(OutgoingMessage.priority(TOPIC.name(), "m" + i, 100).withKey("m" + i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> consumedBy.size() == 40);
            assertThat(new TreeSet<>(consumedBy.values())).as("who consumed what zone a sent")
                    .isSubsetOf("a1", "a2");
            TopicCounts counts = fromA.inspector().counts(TOPIC.name());
            assertThat(counts.zones()).containsOnlyKeys("a", "b");
        } finally {
            producerRedis.shutdown();
        }

        b1.close();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(owned(a1, a2)).hasSize(SLOTS));

        ZooKeeperNode b2 = node("b2", "b");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(owned(b2)).isEqualTo(slotsOf("b"));
            assertThat(owned(a1, a2)).isEqualTo(slotsOf("a"));
        });
    }

    private static Set<Integer> slotsOf(String zone) {
        Set<Integer> slots = new TreeSet<>();
        for (int slot = 0; slot < SLOTS; slot++) {
            if (zone.equals(TOPIC.zones().zoneOf(slot))) {
                slots.add(slot);
            }
        }
        return slots;
    }

    private static Set<Integer> owned(ZooKeeperNode... nodes) {
        Set<Integer> owned = new TreeSet<>();
        for (ZooKeeperNode node : nodes) {
            owned.addAll(node.container.ownedSlots());
        }
        return owned;
    }

    private ZooKeeperNode node(String name, String zone) {
        return servers.track(new ZooKeeperNode(name, zone, servers.redis().address(),
                servers.zookeeper().getConnectString(), TOPIC, 2, message -> {
                    consumedBy.put(message.key(), name);
                    return ConsumeResult.success();
                }).start());
    }
}
