package dev.rmq.internal.coordination;

import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.UUID;

/**
 * Who an application instance is in ZooKeeper and where its znodes go.
 *
 * @param paths      the znode layout under rmq's root
 * @param acl        the ACL of every znode rmq creates, or null to leave it to the client's ACLProvider
 * @param instanceId this instance's id, unique in the cluster; members and tokens start with it
 * @param origin     where this instance's definitions come from, named in conflict errors
 * @param zone       the availability zone it runs in, null for none; part of its members' names
 * @param claimant   an id of this coordinator of its own, written into its member znodes: a later ZooKeeper session
 *                   of the coordinator tells its own leftovers by it from those of another process that runs, or
 *                   ran moments ago, with the same instance id
 */
public record Membership(ZkPaths paths, @Nullable List<ACL> acl, String instanceId, String origin,
                         @Nullable String zone, String claimant) {

    /** A membership with a claimant id of its own. */
    public Membership(ZkPaths paths, @Nullable List<ACL> acl, String instanceId, String origin, @Nullable String zone) {
        this(paths, acl, instanceId, origin, zone, UUID.randomUUID().toString());
    }

    /** What a member znode holds: the origin, for people, and the claimant. */
    String memberData() {
        return "origin=" + origin + "\nclaimant=" + claimant + "\n";
    }
}
