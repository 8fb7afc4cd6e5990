package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Reads the plan and the owner znodes, for anyone who wants to see who holds what. */
public final class Ownership {

    private Ownership() {
    }

    public static Map<Integer, String> readPlan(CuratorFramework curator, ZkPaths paths, String topic) {
        try {
            return PlanCodec.decode(curator.getData().forPath(paths.plan(topic)));
        } catch (KeeperException.NoNodeException e) {
            return Map.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the plan of topic '" + topic + "': " + e, e);
        }
    }

    public static Map<Integer, String> readOwners(CuratorFramework curator, ZkPaths paths, TopicDefinition topic) {
        Map<Integer, String> owners = new TreeMap<>();
        try {
            for (String slot : curator.getChildren().forPath(paths.owners(topic.name()))) {
                int index = Integer.parseInt(slot);
                readOwner(curator, paths, topic, index).ifPresent(worker -> owners.put(index, worker));
            }
        } catch (KeeperException.NoNodeException e) {
            return owners;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the owners of topic '" + topic.name() + "': " + e, e);
        }
        return owners;
    }

    /** The worker holding one slot, if any. */
    public static Optional<String> readOwner(CuratorFramework curator, ZkPaths paths, TopicDefinition topic, int slot) {
        try {
            return Optional.of(workerOf(curator.getData().forPath(paths.owner(topic.name(), slot))));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the owner of slot " + slot + " of topic '" + topic.name()
                    + "': " + e, e);
        }
    }

    /** An owner znode holds {@code worker/token}. */
    public static String workerOf(byte[] ownerData) {
        String text = new String(ownerData, StandardCharsets.UTF_8);
        int slash = text.indexOf('/');
        return slash < 0 ? text : text.substring(0, slash);
    }
}
