/**
 * Recurring schedules in Spring Boot: cron expressions in Spring's dialect ({@link dev.rmq.spring.schedule.CronTicks}),
 * {@code rmq.schedules.*} properties, and their declaration when the context starts.
 */
@NullMarked
package dev.rmq.spring.schedule;

import org.jspecify.annotations.NullMarked;
