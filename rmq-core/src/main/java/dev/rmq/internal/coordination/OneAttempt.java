package dev.rmq.internal.coordination;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
     * Deletes {@code path} if the client's session now owns it (an ephemeral znode of this session), and forgets
     * it. One of another session is left: a process that shares this one's instance id, or this one's earlier
     * session, whose znodes go with it.
     */
    static void deleteIfOwned(CuratorFramework curator, String path) {
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            String full = ZKPaths.fixForNamespace(curator.getNamespace(), path);
            zk.exists(full, false, (rc, p, ctx, stat) -> {
                if (stat != null && stat.getEphemeralOwner() == session) {
                    zk.delete(full, stat.getVersion(), (drc, dp, dctx) -> { }, null);
                }
            }, null);
        } catch (Exception e) {
            log.debug("could not delete {}: {}", path, e.toString());
        }
    }
}
