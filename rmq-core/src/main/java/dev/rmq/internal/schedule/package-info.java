/**
 * Recurring schedules at work: the plan of what one pass sends ({@link dev.rmq.internal.schedule.TickPlan}), the
 * runner that makes the passes, and the Redis side of the schedules' operations.
 */
@NullMarked
package dev.rmq.internal.schedule;

import org.jspecify.annotations.NullMarked;
