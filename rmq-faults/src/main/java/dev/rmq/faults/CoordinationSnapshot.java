package dev.rmq.faults;

import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.RmqClient;
import dev.rmq.internal.coordination.ZkPaths;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;
import org.redisson.client.codec.StringCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who holds what, as ZooKeeper and Redis see it: per topic the members (with the session that owns each
 * ephemeral znode), the plan, the owner znodes and the fencing token in Redis of every slot. Taken at the end of
 * a run (and when a fault does not recover) so that a slot nobody consumes can be explained.
 */
final class CoordinationSnapshot {

    private CoordinationSnapshot() {
    }

    static Map<String, Object> take(String zkConnect, HarnessClients clients) {
        Map<String, Object> snapshot = new LinkedHashMap<>();
        ZkPaths paths = new ZkPaths("/rmq");
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient(zkConnect, 10_000, 5_000,
                new ExponentialBackoffRetry(100, 3))) {
            curator.start();
            if (!curator.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
                snapshot.put("error", "ZooKeeper not reachable");
                return snapshot;
            }
            for (TopicDefinition topic : clients.topics()) {
                RmqClient rmq = clients.forTopic(topic.name());
                Map<String, Object> view = new LinkedHashMap<>();
                List<String> members = new ArrayList<>();
                for (String member : children(curator, paths.members(topic.name()))) {
                    Stat stat = curator.checkExists().forPath(paths.member(topic.name(), member));
                    members.add(member + (stat == null ? "" : " session 0x" + Long.toHexString(stat.getEphemeralOwner())));
                }
                view.put("members", members);
                String plan;
                try {
                    plan = new String(curator.getData().forPath(paths.plan(topic.name())), StandardCharsets.UTF_8).trim()
                            .replace('\n', ' ');
                } catch (Exception e) {
                    plan = "(none: " + e.getClass().getSimpleName() + ")";
                }
                view.put("plan", plan);
                Map<String, String> slots = new TreeMap<>();
                for (int slot = 0; slot < topic.slotAmount(); slot++) {
                    String owner;
                    try {
                        Stat stat = new Stat();
                        byte[] data = curator.getData().storingStatIn(stat).forPath(paths.owner(topic.name(), slot));
                        owner = new String(data, StandardCharsets.UTF_8) + " session 0x" + Long.toHexString(stat.getEphemeralOwner());
                    } catch (Exception e) {
                        owner = "(no owner znode)";
                    }
                    String fence;
                    try {
                        fence = rmq.redisson().<String>getBucket(new KeyLayout("").slot(topic.name(), slot).owner(),
                                StringCodec.INSTANCE).get();
                    } catch (RuntimeException e) {
                        fence = "(Redis: " + e.getClass().getSimpleName() + ")";
                    }
                    slots.put(String.format("%02d", slot), "znode " + owner + "; fence in Redis " + (fence == null || fence.isEmpty() ? "(none)" : fence));
                }
                view.put("slots", slots);
                snapshot.put(topic.name(), view);
            }
        } catch (Exception e) {
            snapshot.put("error", e.toString());
        }
        return snapshot;
    }

    private static List<String> children(CuratorFramework curator, String path) {
        try {
            return curator.getChildren().forPath(path).stream().sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }
}
