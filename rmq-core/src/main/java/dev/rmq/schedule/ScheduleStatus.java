package dev.rmq.schedule;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * A schedule as Redis and this application see it.
 *
 * @param name        the schedule
 * @param topic       its topic
 * @param rule        its rule, as text
 * @param misfire     its misfire policy
 * @param overlap     its overlap policy
 * @param paused      whether it is paused: no tick is sent until it is resumed
 * @param lastTick    the latest tick whose message was sent (or skipped), by any application; null before the first
 * @param nextTick    the tick that comes next; null while paused
 */
public record ScheduleStatus(String name, String topic, String rule, String misfire, String overlap, boolean paused,
                             @Nullable Instant lastTick, @Nullable Instant nextTick) {
}
