package dev.rmq.spring.console;

import dev.rmq.inspect.SlotCounts;
import dev.rmq.topic.TopicDefinition;
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

    /** One sample of a topic. */
    record Sample(Instant at, long waiting, long inFlight, long retrying, long dead, long dueAgeMs) {
    }

    private final ConsoleData data;
    private final int capacity;
    private final Duration every;
    private final Map<String, Deque<Sample>> samples = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "rmq-console-history");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean failing;

    ConsoleHistory(ConsoleData data, Duration every, Duration length) {
        this.data = data;
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
                add(topic.name(), new Sample(Instant.now(), total.waiting(), total.inFlight(), total.retrying(),
                        total.dead(), total.dueAgeMs()));
            } catch (RuntimeException e) {
                failed = true;
                if (!failing) {
                    log.warn("the rmq console could not sample topic {} for its charts, and leaves a gap until it"
                            + " can: {}", topic.name(), e.toString());
                }
            }
        }
        failing = failed;
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

    Duration length() {
        return every.multipliedBy(capacity);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
