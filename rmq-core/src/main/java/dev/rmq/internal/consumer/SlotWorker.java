package dev.rmq.internal.consumer;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * One consumer thread's poll loop. It polls each of its slots when due (or when woken) and hands what it gets
 * to its {@link BatchRunner}. Slots of one worker are served in turn, so a busy slot cannot starve the others.
 * A slot that is revoked is let go between batches; a fenced poll or acknowledgement lets it go at once.
 */
final class SlotWorker implements SlotOwner, Runnable, WorkerControl {

    private final String id;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final KeyLayout keys;
    private final SlotCalls calls;
    private final BatchRunner<?> batches;
    private final RateGate rate;
    /** Whether a slot is in this worker's own zone (always, without zones). */
    private final IntPredicate local;
    private final SlotTable<SlotState> slots;
    private final Semaphore signal = new Semaphore(0);
    private volatile boolean running = true;
    private volatile boolean exited;
    private volatile long stopDeadlineNanos = Long.MAX_VALUE;
    private volatile int inHand;
    /** Whether the worker waits for a poll's reply: a stop interrupts one that Redis leaves waiting. */
    private volatile boolean polling;
    private final AtomicInteger leftToLeases = new AtomicInteger();
    /** Where the next round over the slots starts, so that no slot is always served first. */
    private int turn;
    /** The thread running the worker, once it runs; an executor's thread is named after the worker meanwhile. */
    private Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);

    SlotWorker(String id, TopicDefinition topic, ConsumerSettings settings, KeyLayout keys, SlotCalls calls,
               BatchRunner<?> batches, RateGate rate, RmqMetrics metrics, ConsumerEvents events, IntPredicate local) {
        this.local = local;
        this.id = id;
        this.topic = topic;
        this.settings = settings;
        this.keys = keys;
        this.calls = calls;
        this.batches = batches;
        this.rate = rate;
        this.slots = new SlotTable<>(topic, "worker", id, metrics, events);
    }

    @Override
    public String workerId() {
        return id;
    }

    @Override
    public void assign(int slot, String fencingToken, Duration holdOff) {
        if (!running) {
            return;
        }
        slots.add(new SlotState(slot, keys.slot(topic.name(), slot), fencingToken, System.nanoTime() + holdOff.toNanos(),
                threadName() + " " + topic.name() + "_" + slot));
        signal.release();
    }

    @Override
    public CompletionStage<Void> revoke(int slot) {
        SlotState state = slots.get(slot);
        if (state == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (exited) {
            slots.release(state);
            return state.revoked;
        }
        CompletableFuture<Void> revoked = state.markRevoked();
        signal.release();
        return revoked;
    }

    @Override
    public Set<Integer> ownedSlots() {
        return slots.owned();
    }

    /** Every slot this worker still has in hand, including those it is letting go after an in-flight message. */
    Set<Integer> heldSlots() {
        return slots.held();
    }

    /** A send made a message due earlier than this slot's planned poll. */
    void wake(int slot) {
        SlotState state = slots.get(slot);
        if (state != null) {
            // at once, unless the slot is still held off after a takeover
            state.woken = true;
            state.nextPollNanos = state.isFenced() || local.test(slot) ? state.holdUntilNanos
                    : Math.max(state.holdUntilNanos - System.nanoTime(), WakeSubscription.FOREIGN_ZONE_GRACE_NANOS)
                    + System.nanoTime();
            signal.release();
        }
    }

    /** Asks the worker to stop popping; what it holds may finish until {@code deadlineNanos}. */
    void stop(long deadlineNanos) {
        stopDeadlineNanos = deadlineNanos;
        running = false;
        signal.release();
    }

    /** The name of the worker's thread between batches; during one, the slot's hash tag follows it. */
    private String threadName() {
        return "rmq-" + id;
    }

    @Override
    public void run() {
        String before;
        synchronized (this) {
            if (done.getCount() == 0) {
                // given up before its executor got to it
                return;
            }
            thread = Thread.currentThread();
            before = thread.getName();
        }
        thread.setName(threadName());
        try {
            while (running) {
                long nextWake = System.nanoTime() + settings.idlePoll().toNanos();
                List<SlotState> round = new ArrayList<>(slots.all());
                if (!round.isEmpty()) {
                    Collections.rotate(round, turn++ % round.size());
                    // the slots of this worker's own zone first, each group still in turn
                    round.sort(Comparator.comparing(state -> !local.test(state.slot)));
                }
                for (SlotState state : round) {
                    if (!running) {
                        break;
                    }
                    if (state.revoked != null) {
                        slots.release(state);
                        continue;
                    }
                    if (state.nextPollNanos - System.nanoTime() <= 0) {
                        poll(state);
                    }
                    if (state.nextPollNanos - nextWake < 0) {
                        nextWake = state.nextPollNanos;
                    }
                }
                long waitNanos = nextWake - System.nanoTime();
                if (waitNanos > 0 && running) {
                    signal.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
                }
                signal.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exited = true;
            slots.all().forEach(slots::release);
            synchronized (this) {
                // an executor's thread goes back to its pool as it came: its name, and no interrupt meant for us
                thread.setName(before);
                Thread.interrupted();
                done.countDown();
            }
        }
    }

    /**
     * Interrupts the worker's thread, if the worker runs on it still. A worker its executor has not started yet is
     * given up: its slots are let go, and it will not run.
     */
    synchronized void interrupt() {
        if (thread != null && done.getCount() > 0) {
            thread.interrupt();
        } else if (thread == null && done.getCount() > 0) {
            running = false;
            exited = true;
            slots.all().forEach(slots::release);
            done.countDown();
        }
    }

    /** Waits until the worker has ended, at most until {@code deadlineNanos}; whether it has. */
    boolean awaitEnd(long deadlineNanos) throws InterruptedException {
        return done.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Whether the worker still runs: it has started and not ended, or its executor has not started it yet. */
    boolean alive() {
        return done.getCount() > 0;
    }

    private void poll(SlotState state) {
        SlotCalls.Poll poll;
        state.woken = false;
        int allowed;
        try {
            polling = true;
            allowed = rate.take(settings.batchSize());
            if (allowed == 0) {
                // the topic's rate limit: no token until then, for any slot of this container
                state.nextPollNanos = rate.shutUntilNanos();
                return;
            }
            poll = calls.poll(state.keys, state.fence, allowed);
            state.verifiedNanos = System.nanoTime();
        } catch (SlotFencedException e) {
            slots.fencedAtPoll(state, e);
            return;
        } catch (RuntimeException e) {
            slots.pollFailed(state, e, !running);
            return;
        } finally {
            polling = false;
        }
        rate.giveBack(allowed - poll.polled().messages().size());
        slots.recordPoll(state, poll.polled());
        long now = System.nanoTime();
        // a send that woke the slot during the call may have come after the script had planned its wait
        boolean pollAgain = poll.polled().waitMs() == 0 || state.woken;
        state.nextPollNanos = pollAgain ? now : now + TimeUnit.MILLISECONDS.toNanos(poll.polled().waitMs());
        if (!poll.polled().messages().isEmpty()) {
            Thread current = Thread.currentThread();
            current.setName(state.threadName);
            try {
                if (!batches.run(state, poll, this)) {
                    slots.release(state);
                }
            } finally {
                current.setName(threadName());
            }
        }
    }


    @Override
    public boolean mustLetGo(SlotState state) {
        return state.revoked != null || (!running && System.nanoTime() - stopDeadlineNanos > 0)
                || Thread.currentThread().isInterrupted();
    }

    @Override
    public boolean outOfTime() {
        return (!running && System.nanoTime() - stopDeadlineNanos > 0) || Thread.currentThread().isInterrupted();
    }

    /** Whether the worker waits for a poll's reply now. */
    boolean polling() {
        return polling;
    }

    @Override
    public boolean stopping() {
        return !running;
    }

    @Override
    public void inHand(int deliveries) {
        inHand = deliveries;
    }

    @Override
    public void leftToLeases(int deliveries) {
        leftToLeases.addAndGet(deliveries);
    }

    /**
     * Deliveries this worker leaves to lease recovery: those whose acknowledgement failed while it stopped, and,
     * when its thread is still running a handler, the batch it has in hand.
     */
    int deliveriesLeftToLeases(boolean threadStillRunning) {
        return leftToLeases.get() + (threadStillRunning ? inHand : 0);
    }
}
