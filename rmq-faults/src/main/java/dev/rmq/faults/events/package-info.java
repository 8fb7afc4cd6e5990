/**
 * The fault harness's events: what every process of a run did, one JSON line each
 * ({@link dev.rmq.faults.events.HarnessEvent}), written by {@link dev.rmq.faults.events.EventLog} and read back by
 * {@link dev.rmq.faults.events.EventReader}. The invariant checker decides from these alone.
 */
@NullMarked
package dev.rmq.faults.events;

import org.jspecify.annotations.NullMarked;
