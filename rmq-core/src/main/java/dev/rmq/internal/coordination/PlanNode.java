package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.SortedSet;

/**
 * A topic's plan znode: the plan every instance follows, and the next one, written with a version check by whichever
 * instance finds that the plan no longer fits the members, so that all instances converge on one plan.
 */
final class PlanNode {

    /** Under the assignment's name, as every other line about a topic's slots. */
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperSlotAssignment.class);

    private PlanNode() {
    }

    /** The plan to follow, writing a new one when it does not fit {@code members}; null when a write raced. */
    static @Nullable Map<Integer, String> current(CuratorFramework curator, Membership membership,
                                                  TopicDefinition topic, SortedSet<String> members) throws Exception {
        String path = membership.paths().plan(topic.name());
        Stat stat = new Stat();
        Map<Integer, String> plan;
        try {
            plan = PlanCodec.decode(curator.getData().storingStatIn(stat).forPath(path));
        } catch (KeeperException.NoNodeException e) {
            plan = Map.of();
            stat = null;
        }
        if (members.isEmpty()) {
            return plan;
        }
        // the planner keeps a balanced plan of live members as it is, so an unchanged result means it fits
        Map<Integer, String> next = SlotPlanner.plan(topic.slotAmount(), topic.zones(), members, plan);
        if (next.equals(plan)) {
            return plan;
        }
        try {
            if (stat == null) {
                curator.create().creatingParentContainersIfNeeded().withACL(membership.acl())
                        .forPath(path, PlanCodec.encode(next));
            } else {
                curator.setData().withVersion(stat.getVersion()).forPath(path, PlanCodec.encode(next));
            }
            log.info("topic {}: new plan for {} member(s)", topic.name(), members.size());
            return next;
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            return null;
        }
    }
}
