/**
 * Topic definitions, their validation, and slot routing.
 *
 * <p>A topic's messages are spread over {@code slotAmount} slots; the slot of a message is
 * {@code CRC32(UTF-8 bytes of slotBasis) mod slotAmount} (see {@link dev.rmq.topic.SlotRouter}).
 */
@NullMarked
package dev.rmq.topic;

import org.jspecify.annotations.NullMarked;
