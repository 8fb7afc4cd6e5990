package dev.rmq.internal.coordination;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.util.concurrent.CompletableFuture;

/**
 * ZooKeeper calls made once, in the background, on the ZooKeeper handle directly, for what is left behind: Curator
 * would retry a call that ZooKeeper cannot take until its connection timeout, then log an error for each. What such
 * a call fails to delete is ephemeral and goes with the session.
 */
final class OneAttempt {

    /** Whether a znode, as read, is the caller's to delete; {@code session} is the client's session now. */
    @FunctionalInterface
    interface Ours {
        boolean test(long session, Stat stat, byte[] data);
    }

    private OneAttempt() {
    }

    /**
     * Reads {@code path} and deletes it at the version read if {@code ours} says it is the caller's. Completes with
     * true once ZooKeeper answered that it is deleted, gone, changed since the read, or not the caller's, and with
     * false when ZooKeeper failed a call: a client closed between the read and the delete drops the delete.
     */
    static CompletableFuture<Boolean> deleteIf(CuratorFramework curator, String path, Ours ours) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            String full = ZKPaths.fixForNamespace(curator.getNamespace(), path);
            zk.getData(full, false, (read, p, ctx, data, stat) -> {
                if (read == KeeperException.Code.NONODE.intValue()) {
                    done.complete(true);
                } else if (read != KeeperException.Code.OK.intValue()) {
                    done.complete(false);
                } else if (!ours.test(session, stat, data)) {
                    done.complete(true);
                } else {
                    zk.delete(full, stat.getVersion(), (deleted, p2, ctx2) -> done.complete(
                            deleted == KeeperException.Code.OK.intValue()
                                    || deleted == KeeperException.Code.NONODE.intValue()
                                    || deleted == KeeperException.Code.BADVERSION.intValue()), null);
                }
            }, null);
        } catch (Exception e) {
            done.complete(false);
        }
        return done;
    }
}
