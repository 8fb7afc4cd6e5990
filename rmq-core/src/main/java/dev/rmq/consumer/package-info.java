/**
 * Consuming. A {@link dev.rmq.consumer.RmqConsumerContainer} runs worker threads over the slots that a
 * {@link dev.rmq.consumer.SlotAssignment} gives them and hands each message, an
 * {@link dev.rmq.consumer.RmqMessage}, to an {@link dev.rmq.consumer.RmqHandler}, whose
 * {@link dev.rmq.consumer.ConsumeResult} decides what happens to it.
 *
 * <p>The service provider side: {@link dev.rmq.consumer.SlotAssignment} and {@link dev.rmq.consumer.SlotOwner}
 * decide which worker polls which slot ({@link dev.rmq.consumer.LocalSlotAssignment} without coordination),
 * and {@link dev.rmq.consumer.SlotFencing} keeps a cut-off worker from touching a slot it lost.
 */
@NullMarked
package dev.rmq.consumer;

import org.jspecify.annotations.NullMarked;
