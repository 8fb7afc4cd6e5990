/**
 * The Redis data of rmq, below the scripts: where every key is named ({@link dev.rmq.internal.redis.KeyLayout},
 * {@link dev.rmq.internal.redis.SlotKeys}), the binary envelope that wraps each message
 * ({@link dev.rmq.internal.redis.Envelope}), and waiting on Redis calls ({@link dev.rmq.internal.redis.Futures}).
 *
 * <p>All keys of one slot share one hash tag, so every script touches a single Redis Cluster slot.
 */
@NullMarked
package dev.rmq.internal.redis;

import org.jspecify.annotations.NullMarked;
