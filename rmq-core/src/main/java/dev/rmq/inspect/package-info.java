/**
 * Looking at what is queued without taking it: an {@link dev.rmq.inspect.RmqInspector} counts each slot's
 * messages by where they are ({@link dev.rmq.inspect.SlotCounts}), pages through the waiting ones in the order a
 * consumer would take them and through the in-flight ones, and finds one message by key.
 */
@NullMarked
package dev.rmq.inspect;

import org.jspecify.annotations.NullMarked;
