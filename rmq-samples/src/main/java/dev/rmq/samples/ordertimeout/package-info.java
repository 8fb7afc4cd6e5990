/**
 * order-timeout, a FIXED_TIME topic: an order that is still unpaid at its deadline is closed then, and
 * not before; paying cancels the deadline message by its key.
 */
@NullMarked
package dev.rmq.samples.ordertimeout;

import org.jspecify.annotations.NullMarked;
