/**
 * rmq: a Redis-backed message queue with range-merge, priority and fixed-time messages.
 *
 * <p>{@link dev.rmq.RmqClient} is the entry point: it binds a Redisson client to a set of topic
 * definitions and hands out the producer, the dead queue and consumer containers.
 */
@NullMarked
package dev.rmq;

import org.jspecify.annotations.NullMarked;
