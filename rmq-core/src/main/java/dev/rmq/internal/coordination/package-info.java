/**
 * ZooKeeper coordination's machinery, for {@link dev.rmq.coordination.RmqCoordinator}: topic registration with
 * conflict detection, the slot plan ({@link dev.rmq.internal.coordination.SlotPlanner}), worker membership and
 * slot ownership ({@link dev.rmq.internal.coordination.ZooKeeperSlotAssignment}), and the slots' fencing tokens
 * in Redis ({@link dev.rmq.internal.coordination.RedisSlotFencing}). The znode layout is in
 * {@link dev.rmq.internal.coordination.ZkPaths}.
 */
@NullMarked
package dev.rmq.internal.coordination;

import org.jspecify.annotations.NullMarked;
