package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicConflictException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records each topic's type and slot amount in ZooKeeper the first time an application defines it, and
 * refuses a later definition that routes or orders messages differently. Each running application also
 * records the topic's job controls in an ephemeral znode of its own; an application whose controls differ from
 * those of one still running is refused. Controls can change from one deployment to the next, once no
 * application with the old ones runs.
 */
public final class TopicRegistration {

    private TopicRegistration() {
    }

    /**
     * @param instance this application instance's id, the name of its controls znode
     * @param origin   where its definitions come from, for the errors
     */
    public static void register(CuratorFramework curator, ZkPaths paths, @Nullable List<ACL> acl,
                                TopicDefinition topic, String instance, String origin) throws Exception {
        registerDefinition(curator, paths, acl, topic, origin);
        registerControls(curator, paths, acl, topic, instance, origin);
    }

    private static void registerDefinition(CuratorFramework curator, ZkPaths paths, @Nullable List<ACL> acl,
                                           TopicDefinition topic, String origin) throws Exception {
        String path = paths.topic(topic.name());
        byte[] data = encode(topic.type(), topic.slotAmount(), origin);
        try {
            curator.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).withACL(acl).forPath(path, data);
            return;
        } catch (KeeperException.NodeExistsException e) {
            // someone registered it already: compare below
        }
        Map<String, String> existing = decode(curator.getData().forPath(path));
        String type = existing.get("type");
        String slots = existing.get("slotAmount");
        if (type == null || slots == null) {
            curator.setData().forPath(path, data);
            return;
        }
        if (!type.equals(topic.type().name()) || !slots.equals(String.valueOf(topic.slotAmount()))) {
            throw new TopicConflictException("topic '" + topic.name() + "' is defined differently: " + type + " with "
                    + slots + " slots by " + existing.getOrDefault("origin", "an unknown application") + ", but "
                    + topic.type() + " with " + topic.slotAmount() + " slots by " + origin
                    + "; every application must agree on a topic's type and slotAmount");
        }
    }

    private static void registerControls(CuratorFramework curator, ZkPaths paths, @Nullable List<ACL> acl,
                                         TopicDefinition topic, String instance, String origin) throws Exception {
        String own = paths.controls(topic.name(), instance);
        byte[] data = ("controls=" + topic.controls() + "\norigin=" + origin + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).withACL(acl)
                    .forPath(own, data);
        } catch (KeeperException.NodeExistsException e) {
            curator.setData().forPath(own, data);
        }
        for (String other : curator.getChildren().forPath(paths.controls(topic.name()))) {
            if (other.equals(instance)) {
                continue;
            }
            Map<String, String> theirs;
            try {
                theirs = decode(curator.getData().forPath(paths.controls(topic.name(), other)));
            } catch (KeeperException.NoNodeException gone) {
                continue;
            }
            if (!topic.controls().equals(theirs.get("controls"))) {
                try {
                    curator.delete().forPath(own);
                } catch (KeeperException.NoNodeException gone) {
                    // nothing to take back
                }
                throw new TopicConflictException("topic '" + topic.name() + "' has other job controls in "
                        + theirs.getOrDefault("origin", "an application") + ", which is running: " + theirs.get("controls")
                        + ", but " + topic.controls() + " in " + origin + "; the applications running a topic at once"
                        + " must agree on its controls. To change them, stop the applications with the old ones first"
                        + " (a stopped one's entry goes with its ZooKeeper session)");
            }
        }
    }

    /** Takes back this instance's job controls of a topic, once, without waiting: the coordinator is closing. */
    public static void forget(CuratorFramework curator, ZkPaths paths, TopicDefinition topic, String instance) {
        // this session's only: a process running with the same instance id holds its own
        OneAttempt.deleteIf(curator, paths.controls(topic.name(), instance),
                (session, stat, data) -> stat.getEphemeralOwner() == session);
    }

    static byte[] encode(TopicType type, int slotAmount, String origin) {
        return ("type=" + type.name() + "\nslotAmount=" + slotAmount + "\norigin=" + origin + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> decode(byte @Nullable [] data) {
        Map<String, String> fields = new TreeMap<>();
        if (data != null) {
            for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    fields.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        return fields;
    }
}
