/**
 * The fault-injection harness: {@link dev.rmq.faults.FaultHarness} starts Redis (standalone with AOF, a
 * 3-master/3-replica Cluster, or both side by side with their own topics), a 3-server ZooKeeper ensemble (in the
 * harness's JVM), a producer JVM ({@link dev.rmq.faults.ProducerMain}) and consumer JVMs
 * ({@link dev.rmq.faults.ConsumerMain}), injects faults at random times ({@code FaultInjector}), and hands the run to
 * the {@link dev.rmq.faults.check.InvariantChecker}, which accounts for every send receipt.
 *
 * <p>Every process writes what it does to its own event file ({@link dev.rmq.faults.events}), flushed at once,
 * with the host clock in microseconds (every process runs on one host, so they share it); a SIGKILL can lose at
 * most the line being written. The checker reads those files alone.
 */
@NullMarked
package dev.rmq.faults;

import org.jspecify.annotations.NullMarked;
