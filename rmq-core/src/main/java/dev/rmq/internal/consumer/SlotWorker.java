package dev.rmq.internal.consumer;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.internal.slot.Batch;
import dev.rmq.internal.slot.Sessions;
import dev.rmq.internal.slot.SlotChoice;
import dev.rmq.internal.slot.SlotSession;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * One consumer thread's poll loop, a driver of its slot sessions: it polls each of its slots when due (or when
 * woken) and hands what it gets to its {@link BatchRunner}. It chooses among its slots as {@link SlotChoice} says:
 * the most urgent message first, or each slot in turn. A slot that is revoked is let go between batches; a fenced poll or acknowledgement
 * lets it go at once.
 */
final class SlotWorker<T> implements SlotOwner, Runnable, WorkerControl {

    private final String id;
    private final ConsumerSettings settings;
    private final BatchRunner<T> batches;
    /** Whether a slot is in this worker's own zone (always, without zones). */
    private final IntPredicate local;
    private final Sessions<T> slots;
    private final Semaphore signal = new Semaphore(0);
    private volatile boolean running = true;
    private volatile boolean exited;
    private volatile long stopDeadlineNanos = Long.MAX_VALUE;
    private volatile long giveBackNanos = Long.MAX_VALUE;
    private volatile int inHand;
    /** Whether the worker waits for a poll's reply: a stop interrupts one that Redis leaves waiting. */
    private volatile boolean polling;
    /** Set when a stop interrupted the poll on its way; guarded by this worker's monitor, as the poll's end is. */
    private boolean pollInterrupted;
    /** Where the next round over the slots starts, so that no slot is always served first. */
    private int turn;
    private final LoopFaults faults;
    /** The sessions whose last batch's endings wait for their next poll; see {@link #carries}. */
    private final HeldEndings<T> held;
    /** The thread running the worker, once it runs; an executor's thread is named after the worker meanwhile. */
    private @Nullable Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    /**
     * Opened once the container's assignment has started: a worker that polled before would take a whole poll from
     * the first slot it got, ahead of more urgent messages in the slots that come a moment later.
     */
    private final CountDownLatch begun = new CountDownLatch(1);

    SlotWorker(String id, ConsumerSettings settings, Sessions<T> slots, BatchRunner<T> batches, IntPredicate local) {
        this.local = local;
        this.id = id;
        this.settings = settings;
        this.batches = batches;
        this.slots = slots;
        this.held = new HeldEndings<>(batches.leases(), this::sendAlone);
        this.faults = new LoopFaults(id);
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
        slots.open(slot, fencingToken, holdOff);
        signal.release();
    }

    @Override
    public CompletionStage<Void> revoke(int slot) {
        SlotSession<T> session = slots.get(slot);
        if (session == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (exited) {
            slots.release(session);
            return session.markRevoked();
        }
        CompletableFuture<Void> revoked = session.markRevoked();
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
        SlotSession<T> session = slots.get(slot);
        if (session != null) {
            session.wake(local.test(slot));
            signal.release();
        }
    }

    /** The container's assignment has started: the worker may poll what it was given. */
    void begin() {
        begun.countDown();
    }

    /**
     * Asks the worker to stop popping; what it holds may finish until {@code deadlineNanos}, and from
     * {@code giveBackNanos} on the stop gives its slots back (see {@link #clearInterruptForEndings}).
     */
    void stop(long deadlineNanos, long giveBackNanos) {
        stopDeadlineNanos = deadlineNanos;
        this.giveBackNanos = giveBackNanos;
        running = false;
        signal.release();
        begun.countDown();
    }

    /** The name of the worker's thread between batches; during one, the slot's hash tag follows it. */
    private String threadName() {
        return "rmq-" + id;
    }

    @Override
    public void run() {
        String before;
        Thread mine = Thread.currentThread();
        synchronized (this) {
            if (done.getCount() == 0) {
                // given up before its executor got to it
                return;
            }
            thread = mine;
            before = mine.getName();
        }
        mine.setName(threadName());
        try {
            begun.await();
            while (running) {
                try {
                    pass();
                } catch (RuntimeException | Error e) {
                    // a fault outside every handler (they fail on their own): the worker goes on after a pause, as
                    // a thread that ended would leave its slots unpolled while they stay assigned to it
                    faults.report(e, slots.all().size(), running);
                    if (running) {
                        signal.tryAcquire(LoopFaults.PAUSE_MS, TimeUnit.MILLISECONDS);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // an interrupt was meant for a handler or a wait; the endings of what finished must still be sent (a
            // stop whose bound runs out interrupts again, and the endings it cuts are left to their leases)
            clearInterruptForEndings();
            held.sendAll();
            exited = true;
            slots.all().forEach(slots::release);
            synchronized (this) {
                // an executor's thread goes back to its pool as it came: its name, and no interrupt meant for us
                mine.setName(before);
                Thread.interrupted();
                done.countDown();
            }
        }
    }

    /** One pass over the due slots, then the wait until the next is due, a wake-up or a held ending's deadline. */
    private void pass() throws InterruptedException {
        for (SlotChoice.Pick<T> pick : plan()) {
            if (!running) {
                break;
            }
            held.sendDue(System.nanoTime(), pick.session());
            poll(pick.session(), pick.floor());
        }
        long nextWake = System.nanoTime() + settings.idlePoll().toNanos();
        for (SlotSession<T> session : slots.all()) {
            if (session.nextPollNanos() - nextWake < 0) {
                nextWake = session.nextPollNanos();
            }
        }
        // held endings whose time is up go alone; the others wait for their poll, or their deadline
        held.sendDue(System.nanoTime(), null);
        long waitNanos = held.earliestDeadline(nextWake) - System.nanoTime();
        if (waitNanos > 0 && running) {
            signal.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
        }
        signal.drainPermits();
    }

    /**
     * Interrupts the worker's thread if it still waits for a poll's reply: a stop's way out of a poll that Redis
     * leaves waiting. Checked and done under the monitor that the poll's end takes, so that a reply that comes in
     * between does not leave the interrupt to a handler.
     */
    synchronized void interruptPoll() {
        if (polling) {
            pollInterrupted = true;
            interrupt();
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

    /**
     * The polls of this pass: over the slots whose time has come, those of the worker's own zone first, each group
     * as {@link SlotChoice} orders it. Slots being let go are let go first.
     */
    private List<SlotChoice.Pick<T>> plan() {
        List<SlotSession<T>> round = new ArrayList<>(slots.all());
        if (!round.isEmpty()) {
            Collections.rotate(round, turn++ % round.size());
        }
        List<SlotSession<T>> own = new ArrayList<>();
        List<SlotSession<T>> foreign = new ArrayList<>();
        long now = System.nanoTime();
        for (SlotSession<T> session : round) {
            if (session.revoking()) {
                letGo(session);
            } else if (session.nextPollNanos() - now <= 0) {
                (local.test(session.slot) ? own : foreign).add(session);
            }
        }
        List<SlotChoice.Pick<T>> picks = new ArrayList<>(slots.plan(own));
        picks.addAll(slots.plan(foreign));
        return picks;
    }

    /** Lets a revoked slot go: its held endings are sent first, while its fence still holds. */
    private void letGo(SlotSession<T> session) {
        held.send(session);
        slots.release(session);
    }

    private void poll(SlotSession<T> session, @Nullable Long floor) {
        if (session.revoking()) {
            // revoked since the pass was planned, while another slot's batch ran
            letGo(session);
            return;
        }
        Batch<T> batch = null;
        try {
            polling = true;
            // the endings it carries, if any, go with it
            held.carried(session);
            batch = session.poll(settings.batchSize(), floor);
        } finally {
            synchronized (this) {
                polling = false;
                if (pollInterrupted) {
                    pollInterrupted = false;
                    if (batch != null && !batch.deliveries().isEmpty()) {
                        // the reply came first: the interrupt was meant for the poll, not for these handlers. One
                        // that cut the poll short stays, and hurries the worker's way out past a Redis that is gone
                        Thread.interrupted();
                    }
                }
            }
        }
        if (session.lost() || batch.deliveries().isEmpty()) {
            return;
        }
        Thread current = Thread.currentThread();
        current.setName(threadName() + " " + session.topic().name() + "_" + session.slot);
        try {
            if (!batches.run(session, batch, this)) {
                slots.release(session);
            }
        } finally {
            current.setName(threadName());
        }
    }

    @Override
    public boolean mustLetGo(SlotSession<?> session) {
        return session.revoking() || outOfTime();
    }

    @Override
    public boolean carries(SlotSession<?> session) {
        if (!running || !session.leased() || session.revoking() || session.lost()) {
            return false;
        }
        long now = System.nanoTime();
        long hold = HeldEndings.holdNanos(session);
        long untilPoll = session.nextPollNanos() - now;
        // a poll soon; and no lease of the endings may end before the keeper's first renewal, half a lease away:
        // even a poll due at once may wait behind another slot's long handler
        long firstRenewal = session.topic().leaseTimeout().toNanos() / 2;
        if (untilPoll > hold || session.gatheredLeaseEndsBefore(now + firstRenewal + hold)) {
            return false;
        }
        SlotSession<T> mine = slots.get(session.slot);
        if (mine != session) {
            return false;
        }
        held.hold(mine, now + hold);
        return true;
    }

    @Override
    public void clearInterruptForEndings() {
        if (running || System.nanoTime() - giveBackNanos < 0) {
            Thread.interrupted();
        }
    }

    @Override
    public synchronized void clearStrayInterrupt() {
        // under the monitor the stop's interrupts take, each after the stop cleared running: none is cleared here
        if (running) {
            Thread.interrupted();
        }
    }

    @Override
    public void sendHeldEndings() {
        held.sendDue(System.nanoTime(), null);
    }

    /** Sends the endings of a session alone; a slot that turns out to be lost is let go. */
    private void sendAlone(SlotSession<T> session) {
        if (!session.flush()) {
            slots.release(session);
        }
    }

    @Override
    public boolean outOfTime() {
        // only a stop interrupts the worker's thread: an interrupt a handler left set on it is not one
        return !running && (System.nanoTime() - stopDeadlineNanos > 0 || Thread.currentThread().isInterrupted());
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

    /**
     * Deliveries this worker leaves to lease recovery: those whose acknowledgement failed while it stopped, and,
     * when its thread is still running a handler, the batch it has in hand.
     */
    int deliveriesLeftToLeases(boolean threadStillRunning) {
        return slots.leftToLeases() + (threadStillRunning ? inHand : 0);
    }
}
