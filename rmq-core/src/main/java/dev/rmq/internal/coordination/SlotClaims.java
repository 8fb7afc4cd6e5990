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
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Claiming one slot and giving it up: its ephemeral owner znode in ZooKeeper, and its fencing token in Redis.
 * A worker may poll a slot only while it holds both.
 */
final class SlotClaims {

    private static final Logger log = LoggerFactory.getLogger(SlotClaims.class);
    private static final long WARN_HELD_ELSEWHERE_EVERY_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final CuratorFramework curator;
    private final Membership membership;
    private final SlotFencing fencing;

    /** What this coordinator writes into its member znodes (see {@link Membership#claimant}). */
    private final byte[] memberData;
    /** Member znodes another process holds, by when that was last logged (System.nanoTime); the assignment's thread. */
    private final Map<String, Long> warnedHeldElsewhere = new HashMap<>();

    SlotClaims(CuratorFramework curator, Membership membership, SlotFencing fencing) {
        this.curator = curator;
        this.membership = membership;
        this.fencing = fencing;
        this.memberData = membership.memberData().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A slot claimed: what taking its fence found, the fencing token the worker polls with (the claim's token and
     * its order, see {@link SlotFencing}), and the ZooKeeper session its owner znode belongs to, which holds the
     * slot for as long as it lives.
     */
    record Claimed(SlotFencing.Taken taken, String fence, long session) {
    }

    /**
     * Creates the slot's owner znode with {@code token}, then writes the token and the claim's order as the slot's
     * fence in Redis.
     * Empty when another owner still holds the znode (its deletion brings the caller back), and when the session
     * that created the znode ended before the fence was written: the znode went with it, so another instance may
     * claim the slot at any moment, and a worker polling it would be fenced out in the middle of its batch. The
     * next reconcile claims it again in the session the client has then. Empty as well when the fence refused the
     * claim, as a later one holds the slot: this claim's znode went, and the slot was claimed again, while its
     * fence was on its way.
     */
    Optional<Claimed> claim(TopicDefinition topic, int slot, String token) throws Exception {
        String ownerPath = membership.paths().owner(topic.name(), slot);
        Stat created = new Stat();
        try {
            curator.create().storingStatIn(created).creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .withACL(membership.acl()).forPath(ownerPath, token.getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NodeExistsException e) {
            deleteIfStrandedByThisSession(ownerPath);
            return Optional.empty();
        }
        // the znode's creation zxid orders the claims of the slot, which the fence compares
        String fence = token + "#" + String.format("%016x", created.getCzxid());
        SlotFencing.Taken taken = take(topic, slot, ownerPath, token, fence);
        if (taken.superseded() && stillHeld(ownerPath, created)) {
            // The znode is this claim's, in this session, yet the token in Redis is ordered after it: no claim that
            // holds the slot wrote that token, but one of a ZooKeeper ensemble whose zxids ran higher (rebuilt, or
            // restored from a backup). Left there, it would refuse every claim of the slot for good.
            log.warn("topic {} slot {}: its fencing token {} is ordered after this claim, yet this claim holds the"
                    + " owner znode (was ZooKeeper rebuilt?); the token is cleared and the slot taken", topic.name(),
                    slot, taken.previousToken());
            Futures.joinBounded(fencing.give(topic, slot, taken.previousToken()));
            taken = take(topic, slot, ownerPath, token, fence);
        }
        if (taken.superseded()) {
            log.info("topic {} slot {}: claimed later by {} while this claim's fence was on its way; left to it",
                    topic.name(), slot, Ownership.workerOf(taken.previousToken().getBytes(StandardCharsets.UTF_8)));
            deleteIfOursInBackground(ownerPath, token);
            return Optional.empty();
        }
        long session = created.getEphemeralOwner();
        if (session != currentSession()) {
            log.info("topic {} slot {}: the ZooKeeper session that claimed it ended before its fence was written;"
                    + " it is claimed again in the new session", topic.name(), slot);
            fencing.give(topic, slot, fence);
            return Optional.empty();
        }
        if (!taken.previousToken().isEmpty()) {
            log.info("topic {} slot {}: taken over from {} without a release", topic.name(), slot,
                    Ownership.workerOf(taken.previousToken().getBytes(StandardCharsets.UTF_8)));
        }
        if (!taken.holdOff().isZero()) {
            log.info("topic {} slot {}: polling starts in {} ms, when the leases a cut-off worker may still be"
                    + " working on are over", topic.name(), slot, taken.holdOff().toMillis());
        }
        return Optional.of(new Claimed(taken, fence, session));
    }

    /**
     * Writes a claim's fence. On a failure the claim's znode is deleted, unless another claim's by now, and the
     * error thrown.
     */
    private SlotFencing.Taken take(TopicDefinition topic, int slot, String ownerPath, String token, String fence) {
        try {
            return Futures.joinBounded(fencing.take(topic, slot, fence));
        } catch (RuntimeException e) {
            // without the Redis token the slot cannot be polled: let the next reconcile try again from scratch
            deleteIfOursInBackground(ownerPath, token);
            throw e;
        }
    }

    /** Whether the owner znode {@code created} describes is still there, in the client's session now. */
    private boolean stillHeld(String ownerPath, Stat created) {
        try {
            Stat now = curator.checkExists().forPath(ownerPath);
            return now != null && now.getCzxid() == created.getCzxid() && now.getEphemeralOwner() == currentSession();
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Makes sure a member znode of this instance is there, in the client's session now. A member znode of a session
     * that ended stays until ZooKeeper ends that session, when its timeout is over: left as it is, the member would
     * vanish then, and the other instances would plan its slots away. It is made again in this session. One that
     * another process made (its data names another claimant) is left alone: a process that ran with this instance's
     * id and stopped moments ago (its znode goes at its session timeout, and this one's is made at the next
     * reconcile), or one running with it, which the two would otherwise take from each other on every reconcile.
     */
    void ensureMember(String path) throws Exception {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = curator.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            data = null;
        }
        long session = currentSession();
        if (data != null && session != 0 && stat.getEphemeralOwner() != session) {
            if (!Arrays.equals(memberData, data)) {
                heldElsewhere(path, stat, data);
                return;
            }
            try {
                curator.delete().withVersion(stat.getVersion()).forPath(path);
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
                // gone meanwhile. A member znode is never rewritten, so the version cannot tell ours from one another
                // process made at this path since: that one would be deleted, once, and the create below takes
                // its place until the other's next reconcile finds it ours and leaves it
            }
            data = null;
        }
        if (data == null) {
            try {
                curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .withACL(membership.acl()).forPath(path, memberData);
                warnedHeldElsewhere.remove(path);
            } catch (KeeperException.NodeExistsException e) {
                // created meanwhile, by an earlier tick of this session or by the other process: the next tick looks
            }
        }
    }

    /** Another process holds a member znode of this instance: logged once every ten minutes while it does. */
    private void heldElsewhere(String path, Stat stat, byte[] data) {
        long now = System.nanoTime();
        Long last = warnedHeldElsewhere.get(path);
        if (last != null && now - last < WARN_HELD_ELSEWHERE_EVERY_NANOS) {
            return;
        }
        warnedHeldElsewhere.put(path, now);
        log.warn("rmq coordination {}: member znode {} is held by ZooKeeper session 0x{} of another process ({});"
                + " it is left alone, and this worker competes with that process for its slots while it stays. A"
                + " process that ran with this id and stopped moments ago leaves it until its session times out."
                + " If it stays, two running processes use instanceId '{}': give each its own, or the plan counts"
                + " them as one worker", membership.instanceId(), path, Long.toHexString(stat.getEphemeralOwner()),
                new String(data, StandardCharsets.UTF_8).trim().replace('\n', ' '), membership.instanceId());
    }

    /**
     * Deletes a member znode of this coordinator on the way out, once, in the background: one of the client's
     * session now, or one an earlier session of this coordinator left. Another process's is left.
     */
    void deleteMemberInBackground(String path) {
        OneAttempt.deleteIf(curator, path,
                (session, stat, data) -> stat.getEphemeralOwner() == session || Arrays.equals(memberData, data));
    }

    /** The id of the client's ZooKeeper session now; 0 while it has none, or when it cannot be read. */
    long currentSession() {
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                return curator.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                // Curator hands a background operation's failure to the next call that asks for the handle: ask again
            }
        }
        return 0;
    }

    /**
     * A slot being given back: each stage completes with true once its side took it (the token is cleared or
     * another owner's by now; the owner znode is deleted, gone, or another owner's), with false when it failed.
     * A stop waits for them only until its bound.
     */
    record GivingUp(CompletableFuture<Boolean> tokenCleared, CompletableFuture<Boolean> znodeDeleted) {

        CompletableFuture<Void> both() {
            return CompletableFuture.allOf(tokenCleared, znodeDeleted);
        }
    }

    /**
     * Gives a slot back without blocking: clears the fence in Redis and deletes the owner znode, both at once.
     *
     * @param token the claim's token, which its owner znode holds
     * @param fence the fencing token the claim wrote in Redis
     */
    GivingUp giveUpAsync(TopicDefinition topic, int slot, String token, String fence) {
        CompletableFuture<Boolean> fenceCleared;
        try {
            fenceCleared = fencing.give(topic, slot, fence).toCompletableFuture().handle((cleared, error) -> error == null);
        } catch (RuntimeException e) {
            fenceCleared = CompletableFuture.completedFuture(false);
        }
        return new GivingUp(fenceCleared, deleteIfOursInBackground(membership.paths().owner(topic.name(), slot), token));
    }

    /**
     * Deletes a znode that holds {@code token}, in the background; completes with true once ZooKeeper answered
     * that it is deleted, gone, or another's, and with false when ZooKeeper failed the call.
     */
    private CompletableFuture<Boolean> deleteIfOursInBackground(String path, String token) {
        byte[] ours = token.getBytes(StandardCharsets.UTF_8);
        return OneAttempt.deleteIf(curator, path, (session, stat, data) -> Arrays.equals(ours, data));
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
