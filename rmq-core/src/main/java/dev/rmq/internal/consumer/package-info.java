/**
 * The consumer container's machinery, for {@link dev.rmq.consumer.RmqConsumerContainer}. Each worker thread runs a
 * {@link dev.rmq.internal.consumer.SlotWorker} poll loop, a driver of its slot sessions; a polled batch goes to a
 * {@code BatchRunner}, which has its {@code Invoker} run the handler on each message and gathers their endings in
 * the session.
 */
@NullMarked
package dev.rmq.internal.consumer;

import org.jspecify.annotations.NullMarked;
