package dev.rmq.internal.coordination;

import dev.rmq.consumer.SlotFencing;
import dev.rmq.internal.redis.Futures;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Claiming one slot and giving it up: its ephemeral owner znode in ZooKeeper, and its fencing token in Redis.
 * A worker may poll a slot only while it holds both.
 */
final class SlotClaims {

    private static final Logger log = LoggerFactory.getLogger(SlotClaims.class);

    private final CuratorFramework curator;
    private final Membership membership;
    private final SlotFencing fencing;

    SlotClaims(CuratorFramework curator, Membership membership, SlotFencing fencing) {
        this.curator = curator;
        this.membership = membership;
        this.fencing = fencing;
    }

    /**
     * Creates the slot's owner znode with {@code token}, then writes the token as the slot's fence in Redis.
     * Empty when another owner still holds the znode (its deletion brings the caller back).
     */
    Optional<SlotFencing.Taken> claim(TopicDefinition topic, int slot, String token) throws Exception {
        String ownerPath = membership.paths().owner(topic.name(), slot);
        try {
            curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .withACL(membership.acl()).forPath(ownerPath, token.getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NodeExistsException e) {
            deleteIfStrandedByThisSession(ownerPath);
            return Optional.empty();
        }
        SlotFencing.Taken taken;
        try {
            taken = Futures.joinBounded(fencing.take(topic, slot, token));
        } catch (RuntimeException e) {
            // without the Redis token the slot cannot be polled: let the next reconcile try again from scratch
            deleteQuietly(ownerPath);
            throw e;
        }
        if (!taken.previousToken().isEmpty()) {
            log.info("topic {} slot {}: taken over from {} without a release", topic.name(), slot,
                    Ownership.workerOf(taken.previousToken().getBytes(StandardCharsets.UTF_8)));
        }
        if (!taken.holdOff().isZero()) {
            log.info("topic {} slot {}: polling starts in {} ms, when the leases a cut-off worker may still be"
                    + " working on are over", topic.name(), slot, taken.holdOff().toMillis());
        }
        return Optional.of(taken);
    }

    /** Clears the Redis fence (if still {@code token}) and deletes the owner znode (if still ours). */
    void giveUp(TopicDefinition topic, int slot, String token) {
        try {
            Futures.joinBounded(fencing.give(topic, slot, token));
        } catch (RuntimeException e) {
            log.warn("topic {} slot {}: could not clear the fencing token: {}", topic.name(), slot, e.toString());
        }
        String ownerPath = membership.paths().owner(topic.name(), slot);
        try {
            Stat stat = new Stat();
            byte[] data = curator.getData().storingStatIn(stat).forPath(ownerPath);
            if (token.equals(new String(data, StandardCharsets.UTF_8))) {
                curator.delete().withVersion(stat.getVersion()).forPath(ownerPath);
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            // gone already, or someone else's now
        } catch (Exception e) {
            log.warn("topic {} slot {}: could not delete {}: {}", topic.name(), slot, ownerPath, e.toString());
        }
    }

    /** Whether the slot's owner znode still holds {@code token}: after a reconnect, whether the session kept it. */
    boolean stillOurs(TopicDefinition topic, int slot, String token) {
        try {
            byte[] data = curator.getData().forPath(membership.paths().owner(topic.name(), slot));
            return token.equals(new String(data, StandardCharsets.UTF_8));
        } catch (Exception e) {
            return false;
        }
    }

    void deleteQuietly(String path) {
        try {
            curator.delete().forPath(path);
        } catch (Exception e) {
            log.debug("could not delete {}: {}", path, e.toString());
        }
    }

    /**
     * An owner znode of this very session that no slot of ours stands for (a release whose delete failed)
     * would keep the slot from everyone until the session ends.
     */
    private void deleteIfStrandedByThisSession(String ownerPath) throws Exception {
        Stat stat = curator.checkExists().forPath(ownerPath);
        long session = curator.getZookeeperClient().getZooKeeper().getSessionId();
        if (stat != null && stat.getEphemeralOwner() == session) {
            try {
                curator.delete().withVersion(stat.getVersion()).forPath(ownerPath);
                log.info("deleted {}, left behind by an unfinished release of this instance", ownerPath);
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
                // changed meanwhile; the next reconcile looks again
            }
        }
    }
}
