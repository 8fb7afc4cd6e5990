package dev.rmq.faults;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;

/**
 * The producer's planned calls and calls under way, a lane for each deployment: up to {@link #IN_FLIGHT} calls of a
 * deployment at a time (a {@code sendAll} is one), so that a deployment whose sends wait long (standalone Redis,
 * where the run journals them: a send completes once its row has committed) fills its own window, not the others'.
 * The planning thread plans, starts and stops; a completing call makes room in its lane from any thread.
 *
 * @param <T> a planned call
 */
final class ProducerLanes<T> {

    /** Planned calls of one deployment at most; a burst that comes due beyond this is skipped. */
    static final int MAX_PENDING = 5000;
    /** Calls of one deployment under way at most; its next waits for one to complete. */
    static final int IN_FLIGHT = 512;

    private final Map<Deployment, Lane<T>> lanes = new EnumMap<>(Deployment.class);
    private final ToLongFunction<T> dueNanos;
    /** The planning thread, woken when a call of a lane that was full completes. */
    private volatile @Nullable Thread planner;

    /**
     * One deployment's planned calls and its calls under way. Only the planning thread reads and changes the queue
     * and the counts; a completing call lowers {@link #underWay}.
     */
    private static final class Lane<T> {

        final PriorityQueue<T> pending;
        final AtomicInteger underWay = new AtomicInteger();
        long calls;
        /** How long a due call waited for room among the lane's calls under way: time the rate was not kept. */
        long waitedNanos;
        /** Whether the lane's next call is due and waits for room, since {@link #fullSince}. */
        boolean full;
        long fullSince;

        Lane(Comparator<T> order) {
            this.pending = new PriorityQueue<>(order);
        }

        /** Counts the wait that ends now, if the lane was full. */
        void roomAt(long now) {
            if (full) {
                waitedNanos += now - fullSince;
                full = false;
            }
        }
    }

    /**
     * @param order    the order of a lane's planned calls: by when they are due, then as planned
     * @param dueNanos when a planned call is due, by {@link System#nanoTime()}
     */
    ProducerLanes(List<Deployment> deployments, Comparator<T> order, ToLongFunction<T> dueNanos) {
        for (Deployment deployment : deployments) {
            lanes.put(deployment, new Lane<>(order));
        }
        this.dueNanos = dueNanos;
    }

    /** Makes the calling thread the one a lane that gets room again wakes. */
    void plannedBy(Thread thread) {
        planner = thread;
    }

    /** Whether {@code deployment} has {@link #MAX_PENDING} planned calls waiting already. */
    boolean crowded(Deployment deployment) {
        return lane(deployment).pending.size() >= MAX_PENDING;
    }

    void plan(Deployment deployment, T call) {
        lane(deployment).pending.add(call);
    }

    /**
     * Starts every lane's calls that are due, as far as each has room: {@code start} gets the call and what to run
     * once it completes. Returns how long until the next planned call is due in a lane with room, or
     * {@link Long#MAX_VALUE}.
     */
    long startDue(long now, BiConsumer<T, Runnable> start) {
        long wake = Long.MAX_VALUE;
        for (Lane<T> lane : lanes.values()) {
            wake = Math.min(wake, startDue(lane, now, start));
        }
        return wake;
    }

    private long startDue(Lane<T> lane, long now, BiConsumer<T, Runnable> start) {
        while (true) {
            T next = lane.pending.peek();
            if (next == null) {
                return Long.MAX_VALUE;
            }
            long due = dueNanos.applyAsLong(next);
            if (due - now > 0) {
                return due - now;
            }
            if (lane.underWay.get() >= IN_FLIGHT) {
                if (!lane.full) {
                    lane.full = true;
                    lane.fullSince = now;
                }
                return Long.MAX_VALUE;
            }
            lane.roomAt(now);
            lane.pending.poll();
            lane.underWay.incrementAndGet();
            lane.calls++;
            start.accept(next, () -> completed(lane));
        }
    }

    private void completed(Lane<T> lane) {
        // the planner parks while a lane is full: the call that makes room wakes it
        Thread waiting = planner;
        if (lane.underWay.decrementAndGet() == IN_FLIGHT - 1 && waiting != null) {
            LockSupport.unpark(waiting);
        }
    }

    /** Drops what is planned and not started; a lane still full counts its wait up to now. */
    void stop(long now) {
        for (Lane<T> lane : lanes.values()) {
            lane.pending.clear();
            lane.roomAt(now);
        }
    }

    /** Waits up to {@code timeout} for the calls under way to complete; returns how many have not. */
    int drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (underWay() > 0 && deadline - System.nanoTime() > 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return underWay();
    }

    private int underWay() {
        return lanes.values().stream().mapToInt(lane -> lane.underWay.get()).sum();
    }

    /** The time waited for room in all, in ms, then {@code <deployment>=<calls started>/<ms waited>} for each. */
    String report() {
        long waited = 0;
        StringBuilder each = new StringBuilder();
        for (Map.Entry<Deployment, Lane<T>> entry : lanes.entrySet()) {
            long ms = TimeUnit.NANOSECONDS.toMillis(entry.getValue().waitedNanos);
            waited += ms;
            each.append(' ').append(entry.getKey().cliName()).append('=').append(entry.getValue().calls).append('/')
                    .append(ms);
        }
        return waited + each.toString();
    }

    private Lane<T> lane(Deployment deployment) {
        return Objects.requireNonNull(lanes.get(deployment), "a lane of every deployment of the run");
    }
}
