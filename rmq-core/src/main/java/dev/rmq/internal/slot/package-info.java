/**
 * The slot engine, which every consumer drives. A {@link dev.rmq.internal.slot.SlotSession} is one slot a consumer
 * holds: it polls the slot, keeps the deliveries taken until they end, gathers and sends their endings, renews their
 * leases, watches its fencing token, and reports what holding the slot does. What the topic's delivery guarantee
 * changes (leases and acknowledgements, or messages taken for good) is the session's {@code Guarantee}, which the
 * drivers never ask about. {@link dev.rmq.internal.slot.Sessions} holds one consumer's sessions and what they share;
 * the {@link dev.rmq.internal.slot.LeaseKeeper} renews the leases of a container's batches, between handlers and
 * during them. The drivers are a container's {@code SlotWorker} and a puller's {@code PullSource}.
 */
@NullMarked
package dev.rmq.internal.slot;

import org.jspecify.annotations.NullMarked;
