/**
 * The producer on Redis, for {@link dev.rmq.producer.RmqProducer}: sends planned into send.lua calls (a slot's
 * messages together; a topic's slots sharing calls where Redis takes them), pipelined per batch, and coalesced
 * when single; and the operations on one message by its key.
 */
@NullMarked
package dev.rmq.internal.producer;

import org.jspecify.annotations.NullMarked;
