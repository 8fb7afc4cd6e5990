/**
 * The consumer container's machinery, for {@link dev.rmq.consumer.RmqConsumerContainer}. Each worker thread
 * runs a {@link dev.rmq.internal.consumer.SlotWorker} poll loop over its slots; a polled batch goes to a
 * {@code BatchRunner}, which runs the handler on each message and ends them through an {@code Acknowledger}
 * in one call, while a {@code LeaseKeeper} extends the leases of a batch that outlasts half of one.
 */
package dev.rmq.internal.consumer;
