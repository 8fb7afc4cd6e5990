package dev.rmq.internal.coordination;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
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

    /** Deletes {@code path} (any version) and forgets it. */
    static void delete(CuratorFramework curator, String path) {
        try {
            curator.getZookeeperClient().getZooKeeper()
                    .delete(ZKPaths.fixForNamespace(curator.getNamespace(), path), -1, (rc, p, ctx) -> { }, null);
        } catch (Exception e) {
            log.debug("could not delete {}: {}", path, e.toString());
        }
    }
}
