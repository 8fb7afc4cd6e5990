/**
 * Real Redis for rmq's tests: every Redis test runs against a genuine {@code redis-server} process
 * on a free {@code 127.0.0.1} port, never a mock and never the machine's own Redis on 6379.
 *
 * <ul>
 *   <li>{@link dev.rmq.testsupport.RedisServer}: one standalone server (start, stop, restart on the same
 *       port and data directory, kill to simulate a crash).</li>
 *   <li>{@link dev.rmq.testsupport.RedisCluster}: a 3-master, 3-replica Redis Cluster formed without
 *       redis-cli, with failover support.</li>
 *   <li>{@link dev.rmq.testsupport.RedisTestServers} and {@link dev.rmq.testsupport.RedisExtension}:
 *       entry points for tests, including a cluster shared by the whole JVM.</li>
 *   <li>{@link dev.rmq.testsupport.RedisBinary}: which executable is run.</li>
 *   <li>{@link dev.rmq.testsupport.RedisSentinel}: a master, a replica and three Sentinels, with a failover
 *       by SIGKILL of the master.</li>
 *   <li>{@link dev.rmq.testsupport.TcpProxy}: a loopback proxy in front of a server, for network faults
 *       (latency, stalls, resets, refused connections).</li>
 * </ul>
 *
 * <p>Binary rule: {@code redis-server} from {@code PATH} when there is one, otherwise the Redis 6.2
 * binary shipped in the {@code com.github.codemonstur:embedded-redis} artifact. The artifact's binary
 * is forced with {@code -Drmq.test.redis=embedded} or the environment variable
 * {@code RMQ_TEST_REDIS=embedded}, so the suite can be checked against the oldest supported Redis;
 * {@code -Drmq.test.redis.binary=/abs/path} runs a specific build.
 *
 * <p>Every started process is registered with a JVM shutdown hook, so a failing test cannot leak
 * servers; output of each server goes to {@code redis.log} in its data directory, not the console.
 */
package dev.rmq.testsupport;
