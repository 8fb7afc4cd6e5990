/**
 * ZooKeeper coordination (Apache Curator): topic registration with conflict detection, worker
 * membership, the slot plan, slot ownership and its fencing in Redis.
 *
 * <p>{@link dev.rmq.coordination.RmqCoordinator} is one per application. It hands each container a
 * {@link dev.rmq.coordination.ZooKeeperSlotAssignment}, which keeps every slot with at most one worker
 * of the whole cluster at any instant. The znode layout is in {@link dev.rmq.coordination.ZkPaths}.
 */
package dev.rmq.coordination;
