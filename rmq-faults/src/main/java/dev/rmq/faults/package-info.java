/**
 * The fault-injection harness: {@link dev.rmq.faults.FaultHarness} starts Redis (standalone with AOF, a
 * 3-master/3-replica Cluster, or both side by side with their own topics), a 3-server ZooKeeper ensemble (in the
 * harness's JVM), a producer JVM ({@link dev.rmq.faults.ProducerMain})
 * and consumer JVMs ({@link dev.rmq.faults.ConsumerMain}), injects faults at random times, and hands the logs of
 * every process to {@link dev.rmq.faults.InvariantChecker}, which accounts for every send receipt.
 *
 * <p>All processes write one line per event to their own file, flushed at once, with the host clock in
 * microseconds (every process runs on one host, so they share it); a SIGKILL can lose at most the line being
 * written.
 */
package dev.rmq.faults;
