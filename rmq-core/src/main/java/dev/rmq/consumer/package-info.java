/**
 * Consuming: {@link dev.rmq.consumer.RmqConsumerContainer} runs worker threads over the slots that a
 * {@link dev.rmq.consumer.SlotAssignment} gives them. Each worker polls its slots with one script call
 * (recover expired leases, then move a batch of due messages into prepare), hands the messages to the
 * {@link dev.rmq.consumer.RmqHandler} one after another, and acknowledges the batch with one more call.
 */
package dev.rmq.consumer;
