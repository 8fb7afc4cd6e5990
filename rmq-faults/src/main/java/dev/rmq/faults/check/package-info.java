/**
 * The invariant checker of the fault harness: it reads a run's events
 * ({@link dev.rmq.faults.events.HarnessEvent}) and holds the run to its invariants, each in a check of its own
 * (loss, duplicates, early deliveries, overlap), giving a {@link dev.rmq.faults.check.Verdict}.
 */
@NullMarked
package dev.rmq.faults.check;

import org.jspecify.annotations.NullMarked;
