package dev.rmq.internal.consumer;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.consumer.StopReport;
import dev.rmq.internal.slot.WakeSubscription;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The container: {@code concurrency} {@link SlotWorker} threads, a {@link SlotAssignment} that hands them
 * slots, and the wake-up subscription. {@link #start()} and {@link #stop()} take a lock and call
 * {@link #doStart()} and {@link #doStop(Duration)}.
 *
 * @param <T> the payload type
 */
public class ConsumerContainer<T> implements RmqConsumerContainer<T> {

    private static final Logger log = LoggerFactory.getLogger(ConsumerContainer.class);
    private static final Duration MAX_RELEASE_SHARE = Duration.ofSeconds(2);
    /** How long interrupted handlers get to notice before the slots are given back without them. */
    private static final long INTERRUPTED_JOIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How long a stop waits for polls on their way before it takes Redis for unresponsive. */
    private static final long POLL_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How often a stop interrupts again a worker that outlived its first interrupt. */
    private static final long REINTERRUPT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String id;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final WorkerFactory<T> workerFactory;
    private final WakeSubscription wakes;
    private final Supplier<? extends SlotAssignment> assignments;
    private final ReentrantLock lifecycle = new ReentrantLock();

    private volatile boolean running;
    /** Made anew at each start; null before the first. */
    private @Nullable SlotAssignment assignment;
    private volatile List<SlotWorker<?>> workers = List.of();
    /** Runs the workers; null for a platform thread of the container's own per worker. */
    private final @Nullable Executor executor;

    public ConsumerContainer(String id, TopicDefinition topic, ConsumerSettings settings, WorkerFactory<T> workerFactory,
                             WakeSubscription wakes, Supplier<? extends SlotAssignment> assignments,
                             @Nullable Executor executor) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("container id must not be blank");
        }
        if (settings == null || assignments == null) {
            throw new IllegalArgumentException("settings and assignments of container '" + id + "' must not be null");
        }
        this.id = id;
        this.topic = topic;
        this.settings = settings;
        this.workerFactory = workerFactory;
        this.wakes = wakes;
        this.assignments = assignments;
        this.executor = executor;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public TopicDefinition topic() {
        return topic;
    }

    @Override
    public ConsumerSettings settings() {
        return settings;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public Set<Integer> ownedSlots() {
        Set<Integer> owned = new TreeSet<>();
        for (SlotWorker<?> worker : workers) {
            owned.addAll(worker.ownedSlots());
        }
        return owned;
    }

    @Override
    public Set<Integer> heldSlots() {
        Set<Integer> held = new TreeSet<>();
        for (SlotWorker<?> worker : workers) {
            held.addAll(worker.heldSlots());
        }
        return held;
    }

    @Override
    public Optional<Duration> redisOutage() {
        return workerFactory.redisOutage();
    }

    @Override
    public List<SlotOwner> owners() {
        return List.copyOf(workers);
    }

    @Override
    public final void start() {
        lifecycle.lock();
        try {
            if (running) {
                return;
            }
            doStart();
            running = true;
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public final void stop() {
        StopReport report = stop(settings.shutdownTimeout());
        if (report.needsAttention()) {
            log.warn("container {} {}", id, report.describe());
        } else if (report != StopReport.NOTHING) {
            log.info("container {} {}", id, report.describe());
        }
    }

    @Override
    public final StopReport stop(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("stop timeout must be zero or positive, was " + timeout);
        }
        lifecycle.lock();
        try {
            if (!running) {
                return StopReport.NOTHING;
            }
            running = false;
            return doStop(timeout);
        } finally {
            lifecycle.unlock();
        }
    }

    protected void doStart() {
        List<SlotWorker<?>> newWorkers = new ArrayList<>();
        for (int i = 0; i < settings.concurrency(); i++) {
            newWorkers.add(workerFactory.newWorker(id + "-" + i));
        }
        workers = List.copyOf(newWorkers);
        wakes.open(id, settings.idlePoll(), this::wake);
        for (int i = 0; i < workers.size(); i++) {
            SlotWorker<?> worker = workers.get(i);
            if (executor == null) {
                new Thread(worker, "rmq-" + id + "-" + i).start();
                continue;
            }
            try {
                executor.execute(worker);
            } catch (RejectedExecutionException e) {
                // the workers already handed over have no slots yet: they stop at once
                workers.forEach(w -> w.stop(System.nanoTime(), System.nanoTime()));
                wakes.close();
                throw new IllegalStateException("the executor of container " + id + " refused worker " + i + " of "
                        + workers.size() + "; it needs a thread for each worker, as long as the container runs", e);
            }
        }
        // a fresh assignment per start: a coordinated one cannot rejoin once it has left
        assignment = assignments.get();
        try {
            assignment.start(topic, workers);
        } finally {
            workers.forEach(SlotWorker::begin);
        }
        log.info("container {} started on topic {} with {} worker(s)", id, topic.name(), workers.size());
    }

    /**
     * Stops the workers, then gives the slots back, all within {@code timeout}; see {@link #stop(Duration)}.
     */
    protected StopReport doStop(Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long share = releaseShare(timeout).toNanos();
        long handlersDeadline = deadline - share;
        // a quarter of the share stays for giving the slots back
        long giveBackAt = deadline - share / 4;
        SlotAssignment assignment = Objects.requireNonNull(this.assignment, "a running container has an assignment");
        // before the workers let their slots go: the assignment must not give back a slot, or take one, on its own
        // meanwhile, or the stop's report would miss what such a give-back left behind
        assignment.stopping();
        for (SlotWorker<?> worker : workers) {
            worker.stop(handlersDeadline, giveBackAt);
        }
        interruptStuckPolls(Math.min(share, POLL_GRACE_NANOS));
        // a worker past its deadline hands back what it did not start and acknowledges the batch: half the share
        if (!joinUntil(handlersDeadline + share / 2)) {
            workers.forEach(SlotWorker::interrupt);
            joinUntil(Math.min(giveBackAt, System.nanoTime() + INTERRUPTED_JOIN_NANOS));
            // A worker still alive most likely sends the endings of what it finished, which its exit does after
            // clearing the interrupt, to a Redis that does not answer: its slots go back only once that call
            // ends. Interrupting it again ends the wait; those deliveries are left to their leases.
            while (!joinUntil(Math.min(giveBackAt, System.nanoTime() + REINTERRUPT_NANOS))
                    && System.nanoTime() - giveBackAt < 0) {
                workers.stream().filter(SlotWorker::alive).forEach(SlotWorker::interrupt);
            }
            // Once more, now that the give-back has begun: a worker that cleared its interrupt after the last one,
            // and waits in a call, would hold its slots past the bound. From now on it keeps the interrupt, so
            // that whatever it still sends fails at once, and it lets its slots go.
            workers.stream().filter(SlotWorker::alive).forEach(SlotWorker::interrupt);
        }
        int leftToLeases = 0;
        boolean acksFailed = false;
        for (int i = 0; i < workers.size(); i++) {
            SlotWorker<?> worker = workers.get(i);
            leftToLeases += worker.deliveriesLeftToLeases(worker.alive());
            acksFailed |= worker.deliveriesLeftToLeases(false) > 0;
        }
        StopReport released = assignment.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        wakes.close();
        // The leases' renewals end with the stop, also for a worker still in a handler that outlived it: its batch,
        // the handler's own messages with the rest, is left to its leases, as the report says, for another consumer
        // to recover (under ZooKeeper the slot is given back, and its renewals would be refused as fenced). Such a
        // worker asks for no watch any more, as it polls no more and holds no endings.
        workerFactory.stopped();
        List<String> unreachable = new ArrayList<>(released.unreachable());
        if (acksFailed) {
            unreachable.add("Redis");
        }
        StopReport report = new StopReport(Duration.ofNanos(System.nanoTime() - start), released.slotsReleased(),
                released.fencingTokensLeft(), released.ownerZnodesLeft(), leftToLeases, unreachable);
        log.debug("container {} {}", id, report.describe());
        return report;
    }

    /**
     * A poll that has not answered within {@code graceNanos} of the stop waits on a Redis that does not answer; the
     * worker would sit in it for the client's whole timeout. Its thread is interrupted: whatever that poll may have
     * taken is left to lease recovery, as a stop with Redis gone must.
     */
    private void interruptStuckPolls(long graceNanos) {
        long until = System.nanoTime() + graceNanos;
        while (System.nanoTime() - until < 0 && workers.stream().anyMatch(SlotWorker::polling)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        for (SlotWorker<?> worker : workers) {
            worker.interruptPoll();
        }
    }

    /**
     * Of a stop's bound, what is kept after the handlers' time for the last acknowledgements and for giving the
     * slots back: a quarter, at most 2 s.
     */
    static Duration releaseShare(Duration bound) {
        Duration quarter = bound.dividedBy(4);
        return quarter.compareTo(MAX_RELEASE_SHARE) < 0 ? quarter : MAX_RELEASE_SHARE;
    }

    private boolean joinUntil(long deadlineNanos) {
        for (SlotWorker<?> worker : workers) {
            try {
                if (!worker.awaitEnd(deadlineNanos)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void wake(int slot) {
        for (SlotWorker<?> worker : workers) {
            worker.wake(slot);
        }
    }
}
