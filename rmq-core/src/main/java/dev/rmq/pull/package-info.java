/**
 * Pulling messages instead of having them pushed to a listener: an {@link dev.rmq.pull.RmqPuller} takes up to a
 * number of due messages from one or several topics when the program asks, waiting for the first when none is
 * due, and each {@link dev.rmq.pull.PulledMessage} is ended by the program: acknowledged, retried, or buried.
 * Leases, retries, the dead queue, pause, time to live and the rate limit behave as for a listener container.
 */
@NullMarked
package dev.rmq.pull;

import org.jspecify.annotations.NullMarked;
