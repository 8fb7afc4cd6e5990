package dev.rmq.internal.consumer;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
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

    private final String id;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final WorkerFactory<T> workerFactory;
    private final WakeSubscription wakes;
    private final Supplier<? extends SlotAssignment> assignments;
    private final ReentrantLock lifecycle = new ReentrantLock();

    private volatile boolean running;
    private SlotAssignment assignment;
    private volatile List<SlotWorker> workers = List.of();
    private List<Thread> threads = List.of();

    public ConsumerContainer(String id, TopicDefinition topic, ConsumerSettings settings, WorkerFactory<T> workerFactory,
                             WakeSubscription wakes, Supplier<? extends SlotAssignment> assignments) {
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
        for (SlotWorker worker : workers) {
            owned.addAll(worker.ownedSlots());
        }
        return owned;
    }

    @Override
    public Set<Integer> heldSlots() {
        Set<Integer> held = new TreeSet<>();
        for (SlotWorker worker : workers) {
            held.addAll(worker.heldSlots());
        }
        return held;
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
        stop(settings.shutdownTimeout());
    }

    @Override
    public final void stop(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("stop timeout must be zero or positive, was " + timeout);
        }
        lifecycle.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            doStop(timeout);
        } finally {
            lifecycle.unlock();
        }
    }

    protected void doStart() {
        List<SlotWorker> newWorkers = new ArrayList<>();
        List<Thread> newThreads = new ArrayList<>();
        for (int i = 0; i < settings.concurrency(); i++) {
            SlotWorker worker = workerFactory.newWorker(id + "-" + i);
            newWorkers.add(worker);
            Thread thread = new Thread(worker, "rmq-" + id + "-" + i);
            thread.setDaemon(false);
            newThreads.add(thread);
        }
        workers = List.copyOf(newWorkers);
        threads = List.copyOf(newThreads);
        wakes.open(id, settings.idlePoll(), this::wake);
        threads.forEach(Thread::start);
        // a fresh assignment per start: a coordinated one cannot rejoin once it has left
        assignment = assignments.get();
        assignment.start(topic, workers);
        log.info("container {} started on topic {} with {} worker(s)", id, topic.name(), workers.size());
    }

    protected void doStop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (SlotWorker worker : workers) {
            worker.stop(deadline);
        }
        boolean clean = joinUntil(deadline + TimeUnit.MILLISECONDS.toNanos(200));
        if (!clean) {
            log.warn("container {}: handlers still running after {}; interrupting them, their leases will recover"
                    + " the messages", id, timeout);
            threads.forEach(Thread::interrupt);
            joinUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        }
        assignment.close();
        wakes.close();
        log.info("container {} stopped", id);
    }

    private boolean joinUntil(long deadlineNanos) {
        for (Thread thread : threads) {
            long left = deadlineNanos - System.nanoTime();
            try {
                if (left > 0) {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    private void wake(int slot) {
        for (SlotWorker worker : workers) {
            worker.wake(slot);
        }
    }
}
