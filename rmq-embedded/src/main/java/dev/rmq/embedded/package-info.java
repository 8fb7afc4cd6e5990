/**
 * Servers for development and tests, started on free loopback ports and stopped by their owner: a
 * {@code redis-server} process ({@link dev.rmq.embedded.RedisServer}) and an in-process ZooKeeper
 * ({@link dev.rmq.embedded.EmbeddedZooKeeper}). Not for production: each is a single server with no replica.
 *
 * <p>Binary rule: {@code redis-server} from {@code PATH} when there is one, otherwise the binary shipped in the
 * {@code com.github.codemonstur:embedded-redis} artifact. The artifact's binary is forced with
 * {@code -Drmq.test.redis=embedded} or the environment variable {@code RMQ_TEST_REDIS=embedded};
 * {@code -Drmq.test.redis.binary=/abs/path} runs a specific build ({@link dev.rmq.embedded.RedisBinary}).
 *
 * <p>Every started Redis is registered with a JVM shutdown hook unless it is started
 * {@linkplain dev.rmq.embedded.RedisServerOptions#stoppedOnlyByClose() to be stopped only by its owner}, so a
 * failing test cannot leak servers; each server's output goes to {@code redis.log} in its data directory.
 */
@NullMarked
package dev.rmq.embedded;

import org.jspecify.annotations.NullMarked;
