/**
 * Real Redis deployments for rmq's own tests, built on the processes of {@code rmq-embedded}: every Redis test runs
 * against a genuine {@code redis-server} on a free {@code 127.0.0.1} port, never a mock and never the machine's own
 * Redis on 6379.
 *
 * <ul>
 *   <li>{@link dev.rmq.testsupport.RedisCluster}: a 3-master, 3-replica Redis Cluster formed without
 *       redis-cli, with failover support.</li>
 *   <li>{@link dev.rmq.testsupport.RedisTestServers} and {@link dev.rmq.testsupport.RedisExtension}:
 *       entry points for tests, including a cluster shared by the whole JVM.</li>
 *   <li>{@link dev.rmq.testsupport.RedisSentinel}: a master, a replica and three Sentinels, with a failover
 *       by SIGKILL of the master.</li>
 *   <li>{@link dev.rmq.testsupport.TcpProxy}: a loopback proxy in front of a server, for network faults
 *       (latency, stalls, resets, refused connections).</li>
 * </ul>
 */
@NullMarked
package dev.rmq.testsupport;

import org.jspecify.annotations.NullMarked;
