package dev.rmq.internal.coordination;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;

/**
 * ZooKeeper calls made once, in the background, on the ZooKeeper handle directly, for what is left behind on
 * the way out: Curator would retry a call that ZooKeeper cannot take until its connection timeout, then log an
 * error for each. What such a call fails to delete is ephemeral and goes with the session.
 */
final class OneAttempt {

    private static final Logger log = LoggerFactory.getLogger(OneAttempt.class);

    private OneAttempt() {
    }

    /**
     * Deletes {@code path} if it is the client's: an ephemeral znode of its session now, or one that holds
     * {@code ownData} (null for none), which an earlier session of this client left. One of another process is
     * left. Two round trips, the read and the delete: a client closed before the second drops it, and its
     * session's znodes go with it all the same.
     */
    static void deleteIfOwned(CuratorFramework curator, String path, byte @Nullable [] ownData) {
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            String full = ZKPaths.fixForNamespace(curator.getNamespace(), path);
            zk.getData(full, false, (rc, p, ctx, data, stat) -> {
                if (stat != null && (stat.getEphemeralOwner() == session || Arrays.equals(data, ownData))) {
                    zk.delete(full, stat.getVersion(), (drc, dp, dctx) -> { }, null);
                }
            }, null);
        } catch (Exception e) {
            log.debug("could not delete {}: {}", path, e.toString());
        }
    }
}
