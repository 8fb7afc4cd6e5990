/**
 * Sending messages ({@link dev.rmq.producer.RmqProducer}, {@link dev.rmq.producer.OutgoingMessage}) and
 * operating on waiting messages by key (cancel, reschedule, get, exists).
 */
@NullMarked
package dev.rmq.producer;

import org.jspecify.annotations.NullMarked;
