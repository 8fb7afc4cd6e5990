package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.StopReport;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.pull.Settlement;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The puller: one {@link PullSource} per topic. A poll takes, under the puller's lock, from the due slots of the
 * topics asked for, in turn (see {@link RmqPuller} for the fairness rule), and waits on a monitor, without the
 * lock, when nothing was due: a wake-up, a new slot or an ended delivery notifies it, and it polls again when the
 * earliest known due time comes.
 */
public final class Puller<T> implements RmqPuller<T> {

    private static final Logger log = LoggerFactory.getLogger(Puller.class);
    /** The most messages one script call takes from one slot. */
    static final int MAX_PER_CALL = 1000;
    /** At most this many turns over the slots in one poll: a slot that filled its share may give more. */
    private static final int MAX_PASSES = 4;

    private final String id;
    private final TopicRegistry registry;
    private final Map<String, PullSource<T>> sources;
    private final ByReference<T> byReference;
    private final Duration closeBound;
    private final ReentrantLock lock = new ReentrantLock();
    private final Object changes = new Object();
    /** Counts changes, so that a poll that found nothing does not sleep through one that came meanwhile. */
    private long generation;
    private volatile State state = State.LATENT;
    /** Where the next poll's turn over the topics starts. Guarded by {@link #lock}. */
    private int turn;

    /** Built latent; started once; stopped once, whether it started or not. */
    private enum State { LATENT, STARTED, STOPPED }

    private final Runnable closed;

    /**
     * @param sources builds the source of each topic, given the puller's change signal
     * @param closed  run once when the puller is closed, whether it ever started or not
     */
    public Puller(String id, TopicRegistry registry, Collection<String> topics, Duration closeBound,
                  SourceFactory<T> sources, Runnable closed) {
        this.id = id;
        this.registry = registry;
        this.closeBound = closeBound;
        this.closed = closed;
        Map<String, PullSource<T>> built = new LinkedHashMap<>();
        for (String topic : topics) {
            built.put(topic, sources.build(topic, this::changed));
        }
        this.sources = Collections.unmodifiableMap(built);
        this.byReference = new ByReference<>(id, this.sources);
    }

    /** Builds the source of one topic. */
    public interface SourceFactory<T> {
        PullSource<T> build(String topic, Runnable changed);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Set<String> topics() {
        return sources.keySet();
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (state != State.LATENT) {
                throw new IllegalStateException("puller " + id + " was already " + (state == State.STARTED
                        ? "started" : "closed") + "; a puller starts once");
            }
            state = State.STARTED;
            sources.values().forEach(PullSource::start);
        } finally {
            lock.unlock();
        }
        log.info("puller {} started on topic(s) {}", id, sources.keySet());
    }

    @Override
    public boolean isRunning() {
        return state == State.STARTED;
    }

    @Override
    public List<PulledMessage<T>> poll(int count, Duration timeout) {
        return poll(count, timeout, new String[0]);
    }

    @Override
    public List<PulledMessage<T>> poll(int count, Duration timeout, String... topics) {
        List<PullSource<T>> asked = check(count, timeout, topics);
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean first = true;
        while (true) {
            long seen;
            synchronized (changes) {
                seen = generation;
            }
            List<PulledMessage<T>> got = new ArrayList<>();
            long next;
            lock.lock();
            try {
                if (first) {
                    requireRunning();
                    first = false;
                } else if (state != State.STARTED) {
                    // closed while this poll waited
                    return got;
                }
                RuntimeException unreachable = collect(asked, count, got);
                if (!got.isEmpty()) {
                    return got;
                }
                if (unreachable != null) {
                    throw new RmqUnavailableException("puller " + id + " could not poll any slot of "
                            + names(asked) + ": " + unreachable.getMessage(), unreachable);
                }
                long now = System.nanoTime();
                next = deadline;
                for (PullSource<T> source : asked) {
                    long at = source.nextChangeNanos(now);
                    if (at - next < 0) {
                        next = at;
                    }
                }
            } finally {
                lock.unlock();
            }
            long now = System.nanoTime();
            if (deadline - now <= 0) {
                return got;
            }
            if (!await(seen, Math.max(0, next - now))) {
                return got;
            }
        }
    }

    /**
     * One or more turns over the due slots of {@code asked}: each topic's share of what is left, taken from its
     * slots as {@link PullSource#take} says. Returns the failure when every slot tried failed for want of Redis.
     */
    private @Nullable RuntimeException collect(List<PullSource<T>> asked, int count, List<PulledMessage<T>> got) {
        List<PullSource<T>> order = new ArrayList<>(asked);
        Collections.rotate(order, -(turn++ % order.size()));
        Map<PullSource<T>, List<SlotSession<T>>> due = new IdentityHashMap<>();
        long now = System.nanoTime();
        for (PullSource<T> source : order) {
            due.put(source, source.dueSlots(now));
        }
        RuntimeException failure = null;
        boolean anySuccess = false;
        for (int pass = 0; pass < MAX_PASSES && got.size() < count; pass++) {
            Map<PullSource<T>, List<SlotSession<T>>> again = new IdentityHashMap<>();
            // every source of the order has its entry in due
            int topicsLeft = (int) order.stream().filter(s -> !due.getOrDefault(s, List.of()).isEmpty()).count();
            for (PullSource<T> source : order) {
                List<SlotSession<T>> slots = due.getOrDefault(source, List.of());
                if (slots.isEmpty() || got.size() >= count) {
                    continue;
                }
                int topicShare = ceilDiv(count - got.size(), topicsLeft--);
                List<PulledDelivery<T>> taken = new ArrayList<>();
                PullSource.Taken<T> result = source.take(slots, topicShare, taken);
                got.addAll(taken);
                if (result.failure() != null) {
                    failure = result.failure();
                }
                anySuccess |= result.succeeded();
                again.put(source, result.mayHaveMore());
            }
            order.forEach(source -> due.put(source, again.getOrDefault(source, List.of())));
        }
        return anySuccess ? null : failure;
    }

    /**
     * Redis had lost these keys of a topic's slot, and a restore put them back: deliveries of them that this puller
     * handed out are gone, and no longer keep their slot from being polled. Ending one later is refused as a lease
     * that ran out.
     */
    public void forgetLost(String topic, int slot, Set<String> keys) {
        PullSource<T> source = sources.get(topic);
        if (source != null) {
            source.handedOut().forgetLost(slot, keys);
        }
    }

    static int ceilDiv(int a, int b) {
        return (a + b - 1) / Math.max(1, b);
    }

    /** Waits until something changes or {@code nanos} pass; false when the thread was interrupted. */
    private boolean await(long seen, long nanos) {
        synchronized (changes) {
            if (generation != seen) {
                return true;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(changes, Math.max(1, nanos));
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private void changed() {
        synchronized (changes) {
            generation++;
            changes.notifyAll();
        }
    }

    private List<PullSource<T>> check(int count, Duration timeout, String... topics) {
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count must be between 1 and " + MAX_COUNT + ", was " + count);
        }
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + timeout);
        }
        if (topics == null || topics.length == 0) {
            return new ArrayList<>(sources.values());
        }
        Set<PullSource<T>> asked = new LinkedHashSet<>();
        for (String topic : topics) {
            if (topic == null) {
                throw new IllegalArgumentException("topics must not contain null; puller " + id + " takes from "
                        + sources.keySet());
            }
            PullSource<T> source = sources.get(topic);
            if (source == null) {
                registry.require(topic);
                throw new IllegalArgumentException("puller " + id + " does not take from topic '" + topic
                        + "'; it takes from " + sources.keySet() + " (build another puller for it)");
            }
            asked.add(source);
        }
        return new ArrayList<>(asked);
    }

    private void requireRunning() {
        if (state != State.STARTED) {
            throw new IllegalStateException(state == State.LATENT ? "puller " + id + " is not started: call start()"
                    : "puller " + id + " is closed");
        }
    }

    private static String names(List<? extends PullSource<?>> sources) {
        return sources.stream().map(s -> s.topic().name()).toList().toString();
    }

    @Override
    public List<AckOutcome> ackAll(Collection<? extends PulledMessage<T>> messages) {
        return BatchAck.ackAll(id, messages, this::deliveredHere);
    }

    /** Whether this puller handed the delivery out: another puller's, even of the same topic, is not its to end. */
    private boolean deliveredHere(PulledDelivery<?> delivery) {
        PullSource<T> source = sources.get(delivery.topic());
        return source != null && source.settlement() == delivery.settlement();
    }

    @Override
    public AckOutcome settle(DeliveryRef ref, Settlement how, @Nullable String reason) {
        return byReference.settle(ref, how, reason);
    }

    @Override
    public DeliveryRef extend(DeliveryRef ref, Duration duration) {
        return byReference.extend(ref, duration);
    }

    @Override
    public DeliveryRef reportProgress(DeliveryRef ref, int percent, String note, @Nullable Duration extendLease) {
        return byReference.reportProgress(ref, percent, note, extendLease);
    }

    @Override
    public Map<String, Set<Integer>> ownedSlots() {
        Map<String, Set<Integer>> owned = new TreeMap<>();
        sources.forEach((topic, source) -> owned.put(topic, source.ownedSlots()));
        return owned;
    }

    @Override
    public int inFlight() {
        return sources.values().stream().mapToInt(PullSource::inFlight).sum();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (state == State.STOPPED) {
                return;
            }
            boolean started = state == State.STARTED;
            state = State.STOPPED;
            if (!started) {
                closed.run();
                return;
            }
        } finally {
            lock.unlock();
        }
        try {
            stop();
        } finally {
            closed.run();
        }
    }

    /** Hands back what the program still holds and gives the slots back, within the close bound. */
    private void stop() {
        changed();
        long start = System.nanoTime();
        List<StopReport> reports = new ArrayList<>();
        for (PullSource<T> source : sources.values()) {
            Duration left = closeBound.minusNanos(System.nanoTime() - start);
            reports.add(source.close(left.isNegative() ? Duration.ZERO : left));
        }
        StopReport report = StopReport.sum(reports);
        if (report.needsAttention()) {
            log.warn("puller {} {}", id, report.describe());
        } else {
            log.info("puller {} {}", id, report.describe());
        }
    }
}
