/**
 * The Redis side of rmq: where every key is named ({@link dev.rmq.redis.KeyLayout}), the Lua scripts
 * and how they are run ({@link dev.rmq.redis.Script}, {@link dev.rmq.redis.ScriptRunner}), and the
 * binary envelope that wraps each message ({@link dev.rmq.redis.Envelope}).
 *
 * <p>All keys of one slot share one hash tag, so every script touches a single Redis Cluster slot.
 */
package dev.rmq.redis;
