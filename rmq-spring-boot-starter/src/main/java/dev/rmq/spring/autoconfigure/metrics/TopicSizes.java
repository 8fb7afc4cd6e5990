package dev.rmq.spring.autoconfigure.metrics;

import dev.rmq.metrics.SlotStats;
import dev.rmq.metrics.TopicInspector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The backlog, in-flight and dead sizes and the pause state of each topic, read from Redis at most once per time-to-live.
 * Three gauges per topic would otherwise cost three pipelines over every slot on every scrape; a failed
 * reading is kept as well, so that a Redis outage is not hammered by scrapes.
 */
final class TopicSizes {

    private static final Logger log = LoggerFactory.getLogger(TopicSizes.class);
    private static final SlotStats UNKNOWN = new SlotStats(-1, -1, -1, -1, false, -1);

    private final TopicInspector inspector;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    private record Reading(SlotStats totals, long atNanos) {
    }

    TopicSizes(TopicInspector inspector, Duration ttl) {
        this(inspector, ttl, System::nanoTime);
    }

    TopicSizes(TopicInspector inspector, Duration ttl, LongSupplier nanoClock) {
        this.inspector = inspector;
        this.ttlNanos = ttl.toNanos();
        this.nanoClock = nanoClock;
    }

    double backlog(String topic) {
        return value(totals(topic).backlog());
    }

    double inFlight(String topic) {
        return value(totals(topic).inFlight());
    }

    double dead(String topic) {
        return value(totals(topic).dead());
    }

    /** How long the oldest due message has been due, in seconds; 0 when none is due. */
    double oldestDueAge(String topic) {
        long ms = totals(topic).dueAgeMs();
        return ms < 0 ? Double.NaN : ms / 1000.0;
    }

    double paused(String topic) {
        SlotStats totals = totals(topic);
        return totals == UNKNOWN ? Double.NaN : totals.paused() ? 1 : 0;
    }

    private SlotStats totals(String topic) {
        long now = nanoClock.getAsLong();
        Reading reading = readings.get(topic);
        if (reading != null && now - reading.atNanos() < ttlNanos) {
            return reading.totals();
        }
        // One reader per topic at a time; the others keep the previous reading meanwhile.
        synchronized (locks.computeIfAbsent(topic, k -> new Object())) {
            Reading again = readings.get(topic);
            if (again != null && now - again.atNanos() < ttlNanos) {
                return again.totals();
            }
            SlotStats totals;
            try {
                totals = inspector.totals(topic);
            } catch (RuntimeException e) {
                log.debug("rmq could not read the sizes of topic {}: {}", topic, e.toString());
                totals = UNKNOWN;
            }
            readings.put(topic, new Reading(totals, now));
            return totals;
        }
    }

    /** NaN, Micrometer's "no value", for a reading that failed. */
    private static double value(long size) {
        return size < 0 ? Double.NaN : size;
    }
}
