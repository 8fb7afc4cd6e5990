package dev.rmq.internal.coordination;

import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * Who an application instance is in ZooKeeper and where its znodes go.
 *
 * @param paths      the znode layout under rmq's root
 * @param acl        the ACL of every znode rmq creates, or null to leave it to the client's ACLProvider
 * @param instanceId this instance's id, unique in the cluster; members and tokens start with it
 * @param origin     where this instance's definitions come from, named in conflict errors
 * @param zone       the availability zone it runs in, null for none; part of its members' names
 */
public record Membership(ZkPaths paths, @Nullable List<ACL> acl, String instanceId, String origin,
                         @Nullable String zone) {
}
