/**
 * The producer on Redis, for {@link dev.rmq.producer.RmqProducer}: sends grouped by slot into send.lua
 * calls, pipelined per batch, and the operations on one message by its key.
 */
@NullMarked
package dev.rmq.internal.producer;

import org.jspecify.annotations.NullMarked;
