package dev.rmq.internal.schedule;

import dev.rmq.metrics.RmqMetrics;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.topic.TopicDefinition;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * How late a schedule's tick is handled, against the tick's instant rather than its due time: a tick that caught up
 * after a misfire is due long after its instant, and this is what shows it.
 */
public final class TickLateness {

    private TickLateness() {
    }

    /**
     * Reports a delivery's lateness against its tick, if it is a schedule's tick: its headers name the schedule and
     * the tick, and its key is the schedule's. The key is checked too, so that headers an application sends cannot
     * add a meter per name they make up.
     */
    public static void report(RmqMetrics metrics, TopicDefinition topic, String key, Map<String, String> headers,
                              long nowMs) {
        String schedule = headers.get(RecurringSchedule.SCHEDULE_HEADER);
        String tick = headers.get(RecurringSchedule.TICK_HEADER);
        if (schedule == null || tick == null || !key.startsWith(schedule + "@")) {
            return;
        }
        try {
            metrics.scheduleLateness(schedule, topic, nowMs - Instant.parse(tick).toEpochMilli());
        } catch (DateTimeParseException e) {
            // a header of the application's own that happens to share the name: not a tick of rmq's
        }
    }
}
