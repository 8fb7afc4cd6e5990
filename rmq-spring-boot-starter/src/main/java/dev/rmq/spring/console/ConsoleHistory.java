package dev.rmq.spring.console;

import dev.rmq.inspect.SlotCounts;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The charts' memory: each topic's counts sampled once per refresh, kept for the history's length, in this
 * application's memory only. A sample reads the counts the pages share (see {@link ConsoleData#counts}), so the
 * history costs Redis nothing more than an open page.
 */
final class ConsoleHistory implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConsoleHistory.class);

    /**
     * One sample of a topic: its counts in Redis, and what this application's meters counted since the sample before
     * (rates per second; the lateness p99 in ms, -1 when nothing was delivered or no meter counts it).
     */
    record Sample(Instant at, long waiting, long inFlight, long retrying, long dead, long dueAgeMs, long sentPerSecond,
                  long consumedPerSecond, long latenessP99Ms) {
    }

    /** A topic's meter totals at one sample, for the next one's rates. */
    private record Reading(ConsoleMeters.Totals totals, long atNanos) {
    }

    private final ConsoleData data;
    private final ConsoleMeters meters;
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();
    private final int capacity;
    private final Duration every;
    private final Map<String, Deque<Sample>> samples = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "rmq-console-history");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean failing;
    /** Set by {@link #close}: a sample that its interrupt cuts short is not a Redis that failed. */
    private volatile boolean closed;

    ConsoleHistory(ConsoleData data, ConsoleMeters meters, Duration every, Duration length) {
        this.data = data;
        this.meters = meters;
        this.every = every;
        this.capacity = (int) Math.max(1, length.dividedBy(every));
    }

    void start() {
        timer.scheduleWithFixedDelay(this::sampleAll, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Samples every topic once; a topic whose counts cannot be read now misses this sample. */
    void sampleAll() {
        boolean failed = false;
        for (TopicDefinition topic : data.topics()) {
            try {
                SlotCounts total = data.counts(topic.name()).total();
                long[] metered = metered(topic.name());
                add(topic.name(), new Sample(Instant.now(), total.waiting(), total.inFlight(), total.retrying(),
                        total.dead(), total.dueAgeMs(), metered[0], metered[1], metered[2]));
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                failed = true;
                if (!failing) {
                    log.warn("the rmq console could not sample topic {} for its charts, and leaves a gap until it"
                            + " can: {}", topic.name(), e.toString());
                }
            }
        }
        failing = failed;
    }

    /** Sends and consumes per second, and the lateness p99, since the topic's last sample: 0, 0, -1 at first. */
    private long[] metered(String topic) {
        ConsoleMeters.Totals totals = meters.read(topic);
        if (totals == null) {
            return new long[] {0, 0, -1};
        }
        long now = System.nanoTime();
        Reading before = readings.put(topic, new Reading(totals, now));
        if (before == null) {
            return new long[] {0, 0, -1};
        }
        double seconds = Math.max(1e-3, (now - before.atNanos()) / 1e9);
        return new long[] {Math.round((totals.sent() - before.totals().sent()) / seconds),
                Math.round((totals.consumed() - before.totals().consumed()) / seconds),
                ConsoleMeters.latenessP99(before.totals(), totals)};
    }

    /** The topic's latest sample, or null before the first. */
    @Nullable Sample latest(String topic) {
        Deque<Sample> kept = samples.get(topic);
        if (kept == null) {
            return null;
        }
        synchronized (kept) {
            return kept.peekLast();
        }
    }

    private void add(String topic, Sample sample) {
        Deque<Sample> kept = samples.computeIfAbsent(topic, t -> new ArrayDeque<>());
        synchronized (kept) {
            kept.addLast(sample);
            while (kept.size() > capacity) {
                kept.removeFirst();
            }
        }
    }

    /** The topic's samples, the oldest first. */
    List<Sample> of(String topic) {
        Deque<Sample> kept = samples.get(topic);
        if (kept == null) {
            return List.of();
        }
        synchronized (kept) {
            return new ArrayList<>(kept);
        }
    }

    /** What it samples, which the pages read too. */
    ConsoleData data() {
        return data;
    }

    /** How often a sample is taken. */
    Duration every() {
        return every;
    }

    Duration length() {
        return every.multipliedBy(capacity);
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
