package dev.rmq.faults;

import java.util.Set;

/**
 * One injected fault.
 *
 * @param id             its number in the run
 * @param kind           what was done
 * @param target         to whom: a consumer incarnation (kill, stop, zk-expire), a Redis node, ZooKeeper servers
 * @param injectMicros   when it was injected (host clock)
 * @param healMicros     when the harness undid it (the restart, SIGCONT or quorum return) or saw the topology
 *                       settle again (failover, master kill); equal to inject for instantaneous faults
 * @param recoveryMicros how long after injection the last of its probes was consumed; -1 when they were not
 *                       all consumed within the probe timeout
 * @param slots          for a Redis fault, the rmq slots ({@code topic_index}) whose keys lived on the node it
 *                       hit: every standalone slot for a restart, the killed or demoted master's for the
 *                       Cluster; empty for the other faults
 * @param detail         a human-readable note (e.g. whether the kill hit a message in progress)
 */
record FaultRecord(int id, FaultKind kind, String target, long injectMicros, long healMicros, long recoveryMicros,
                   Set<String> slots, String detail) {

    FaultRecord {
        slots = Set.copyOf(slots);
    }
}
