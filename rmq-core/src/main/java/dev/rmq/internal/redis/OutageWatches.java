package dev.rmq.internal.redis;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The outage watches of one client, checked by one daemon thread a few times a second: a call stuck on an
 * unreachable Redis cannot report itself, so the ticker sees it waiting. Closed with the client.
 */
public final class OutageWatches implements AutoCloseable {

    /** The default threshold: longer than a failover's usual pause, short enough to show an outage at once. */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofSeconds(2);
    private static final long TICK_MS = 200;

    private final Duration threshold;
    private final Set<OutageWatch> watches = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker;

    public OutageWatches(Duration threshold) {
        this.threshold = threshold;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rmq-outage-watch");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(this::checkAll, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** A new watch, checked until {@link #remove(OutageWatch)}. */
    public OutageWatch watch(String subject, String doing, Logger log, Consumer<Duration> onEnded) {
        OutageWatch watch = new OutageWatch(subject, doing, threshold, log, onEnded);
        watches.add(watch);
        return watch;
    }

    /** No longer checks {@code watch}: its subject is closed for good. */
    public void remove(OutageWatch watch) {
        watches.remove(watch);
    }

    private void checkAll() {
        long now = System.nanoTime();
        for (OutageWatch watch : watches) {
            watch.check(now);
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        watches.clear();
    }
}
