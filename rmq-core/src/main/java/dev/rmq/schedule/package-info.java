/**
 * Recurring messages: a {@link dev.rmq.schedule.RecurringSchedule} turns each tick of a {@link
 * dev.rmq.schedule.TickRule} (a fixed rate, or a cron expression through a parser such as the starter's) into one
 * fixed-time message, however many applications declare it; {@link dev.rmq.schedule.RmqSchedules} declares,
 * lists, pauses, resumes, triggers and removes them.
 */
@NullMarked
package dev.rmq.schedule;

import org.jspecify.annotations.NullMarked;
