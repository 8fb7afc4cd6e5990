package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicConflictException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records each topic's type and slot amount in ZooKeeper the first time an application defines it, and
 * refuses a later definition that routes or orders messages differently.
 */
public final class TopicRegistration {

    private TopicRegistration() {
    }

    public static void register(CuratorFramework curator, ZkPaths paths, List<ACL> acl, TopicDefinition topic, String origin)
            throws Exception {
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

    static byte[] encode(TopicType type, int slotAmount, String origin) {
        return ("type=" + type.name() + "\nslotAmount=" + slotAmount + "\norigin=" + origin + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> decode(byte[] data) {
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
