package dev.rmq.consumer;

import dev.rmq.RmqContext;
import dev.rmq.topic.TopicDefinition;
import org.redisson.api.RTopic;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Runs {@code concurrency} worker threads over a topic's slots, as a {@link SlotAssignment} hands them
 * out. {@link #start()} and {@link #stop()} are safe to call from any thread and in any order; a stopped
 * container can be started again. A graceful stop stops popping, lets in-flight messages finish and
 * commit until the shutdown timeout, releases what was never started, and leaves anything still running
 * after that to lease recovery.
 */
public class RmqConsumerContainer<T> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RmqConsumerContainer.class);

    private final String id;
    private final ConsumerRuntime<T> runtime;
    private final Supplier<? extends SlotAssignment> assignments;
    private SlotAssignment assignment;
    private final ReentrantLock lifecycle = new ReentrantLock();

    private volatile boolean running;
    private List<SlotWorker<T>> workers = List.of();
    private List<Thread> threads = List.of();
    private volatile int wakeListener = -1;
    /** Whether wake-ups are wanted: from doStart until doStop. */
    private volatile boolean wantWakeUps;

    public RmqConsumerContainer(String id, RmqContext context, TopicDefinition topic, Type payloadType,
                                RmqHandler<T> handler, ConsumerSettings settings,
                                Supplier<? extends SlotAssignment> assignments) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("container id must not be blank");
        }
        if (payloadType == null) {
            throw new IllegalArgumentException("payload type of container '" + id + "' must not be null");
        }
        if (handler == null) {
            throw new IllegalArgumentException("handler of container '" + id + "' must not be null");
        }
        if (settings == null || assignments == null) {
            throw new IllegalArgumentException("settings and assignments of container '" + id + "' must not be null");
        }
        this.id = id;
        this.runtime = new ConsumerRuntime<>(context, topic, settings, payloadType, handler,
                new SlotCalls(context, topic, settings));
        this.assignments = assignments;
    }

    public String id() {
        return id;
    }

    public TopicDefinition topic() {
        return runtime.topic();
    }

    public ConsumerSettings settings() {
        return runtime.settings();
    }

    public boolean isRunning() {
        return running;
    }

    /** The slots this container's workers hold now. */
    public Set<Integer> ownedSlots() {
        Set<Integer> owned = new TreeSet<>();
        for (SlotWorker<T> worker : workers) {
            owned.addAll(worker.ownedSlots());
        }
        return owned;
    }

    /**
     * The slots still in this container's hands: those it owns, and those it is letting go of until their
     * in-flight message ends. Once a slot is out of this set, none of its handlers runs or starts here.
     */
    public Set<Integer> heldSlots() {
        Set<Integer> held = new TreeSet<>();
        for (SlotWorker<T> worker : workers) {
            held.addAll(worker.heldSlots());
        }
        return held;
    }

    /** The workers, as the assignment sees them. */
    public List<SlotOwner> owners() {
        return List.copyOf(workers);
    }

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

    /** Stops gracefully within the configured shutdown timeout. */
    public final void stop() {
        stop(runtime.settings().shutdownTimeout());
    }

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

    @Override
    public void close() {
        stop();
    }

    protected void doStart() {
        List<SlotWorker<T>> newWorkers = new ArrayList<>();
        List<Thread> newThreads = new ArrayList<>();
        for (int i = 0; i < runtime.settings().concurrency(); i++) {
            SlotWorker<T> worker = new SlotWorker<>(id + "-" + i, runtime);
            newWorkers.add(worker);
            Thread thread = new Thread(worker, "rmq-" + id + "-" + i);
            thread.setDaemon(false);
            newThreads.add(thread);
        }
        workers = List.copyOf(newWorkers);
        threads = List.copyOf(newThreads);
        wantWakeUps = true;
        subscribeWake();
        threads.forEach(Thread::start);
        // a fresh assignment per start: a coordinated one cannot rejoin once it has left
        assignment = assignments.get();
        assignment.start(runtime.topic(), workers);
        log.info("container {} started on topic {} with {} worker(s)", id, runtime.topic().name(), workers.size());
    }

    protected void doStop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (SlotWorker<T> worker : workers) {
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
        wantWakeUps = false;
        int listener = wakeListener;
        wakeListener = -1;
        if (listener >= 0) {
            wakeTopic().removeListenerAsync(listener);
        }
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

    /**
     * Wake-ups only spare the idle poll, so a container starts even while Redis is down and keeps
     * trying to subscribe in the background.
     */
    private void subscribeWake() {
        CompletableFuture<Integer> subscribed;
        try {
            subscribed = wakeTopic().addListenerAsync(String.class, (channel, slot) -> wake(slot)).toCompletableFuture();
        } catch (RuntimeException e) {
            subscribed = CompletableFuture.failedFuture(e);
        }
        subscribed.whenComplete((listener, error) -> {
            if (error == null) {
                wakeListener = listener;
                if (!wantWakeUps) {
                    wakeTopic().removeListenerAsync(listener);
                }
            } else if (wantWakeUps) {
                log.warn("container {}: cannot subscribe to wake-ups yet ({}); idle slots are polled every {} until"
                        + " it works", id, error.toString(), runtime.settings().idlePoll());
                CompletableFuture.delayedExecutor(5, TimeUnit.SECONDS).execute(() -> {
                    if (wantWakeUps) {
                        subscribeWake();
                    }
                });
            }
        });
    }

    private RTopic wakeTopic() {
        return runtime.context().redisson().getTopic(runtime.context().keys().wakeChannel(runtime.topic().name()),
                StringCodec.INSTANCE);
    }

    private void wake(String slotText) {
        int slot;
        try {
            slot = Integer.parseInt(slotText);
        } catch (NumberFormatException e) {
            return;
        }
        for (SlotWorker<T> worker : workers) {
            worker.wake(slot);
        }
    }
}
