package dev.rmq.internal.pull;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.consumer.StopReport;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.slot.Batch;
import dev.rmq.internal.slot.ConsumerEvents;
import dev.rmq.internal.slot.Delivery;
import dev.rmq.internal.slot.HandlerFailures;
import dev.rmq.internal.slot.RateGate;
import dev.rmq.internal.slot.Sessions;
import dev.rmq.internal.slot.SlotCalls;
import dev.rmq.internal.slot.SlotChoice;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.internal.slot.WakeSubscription;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One topic of a puller: a slot owner in the topic's assignment, a driver of the slot sessions it holds, that polls
 * them when the puller asks. Slot polls run on the puller's thread under its lock; endings, wake-ups and the
 * assignment's calls come from any thread.
 */
public final class PullSource<T> implements SlotOwner {

    private static final Logger log = LoggerFactory.getLogger(PullSource.class);
    /** The most passes of one {@link #take} over slots ordered most urgent first. */
    private static final int MAX_ORDERED_PASSES = 64;

    /**
     * What {@link #take} got from a topic's due slots: how many messages, the slots that may have more due, and the
     * last failure, if a poll failed; {@code succeeded} when any poll went through.
     */
    record Taken<S>(int messages, List<SlotSession<S>> mayHaveMore, @Nullable RuntimeException failure,
                    boolean succeeded) {
    }

    private final String id;
    private final TopicDefinition topic;
    private final WakeSubscription wakes;
    private final Supplier<? extends SlotAssignment> assignments;
    private final Duration idlePoll;
    /** The zone the puller runs in, null for none: its own zone's slots are polled first. */
    private final @Nullable String zone;
    /** Tells the puller that something changed: a slot came, a wake-up arrived, a slot's deliveries ended. */
    private final Runnable changed;
    private final Sessions<T> slots;
    private final PullSettlement<T> settlement;
    private final ElsewhereSettlement elsewhere;
    private final HandedOut<T> handedOut;
    private volatile boolean running;
    /** Made by {@link #start}; null before. */
    private @Nullable SlotAssignment assignment;
    /** Where the next turn over the slots starts. Guarded by the puller's lock. */
    private int turn;

    public PullSource(String id, TopicDefinition topic, KeyLayout keys, SlotCalls calls, RateGate rate,
                      WakeSubscription wakes, Supplier<? extends SlotAssignment> assignments, Payloads payloads,
                      Type payloadType, RmqMetrics metrics, ConsumerEvents events, Duration idlePoll,
                      @Nullable String zone, Runnable changed) {
        this.zone = zone;
        this.id = id;
        this.topic = topic;
        this.wakes = wakes;
        this.assignments = assignments;
        this.idlePoll = idlePoll;
        this.changed = changed;
        this.settlement = new PullSettlement<>(topic, metrics);
        this.elsewhere = new ElsewhereSettlement(topic, keys, calls, wakes);
        this.slots = new Sessions<>(new Sessions.Parts<>(topic, "puller", id, keys, calls, rate, payloads, payloadType,
                metrics, events, new HandlerFailures(topic), false,
                (session, key, envelope, raw, payload, token, leaseEnds) -> new PulledDelivery<>(settlement, session,
                        key, envelope, raw, payload, token, leaseEnds), () -> !running));
        this.handedOut = new HandedOut<>(id, slots);
        slots.onEnded(session -> {
            releaseIfIdle(session);
            changed.run();
        });
    }

    TopicDefinition topic() {
        return topic;
    }

    /** How this topic's deliveries end. */
    PullSettlement<T> settlement() {
        return settlement;
    }

    /** How deliveries of this topic that another puller handed out are ended by reference. */
    ElsewhereSettlement elsewhere() {
        return elsewhere;
    }

    /** The deliveries this source handed out, as references and other pullers reach them. */
    HandedOut<T> handedOut() {
        return handedOut;
    }

    void start() {
        running = true;
        wakes.open(id, idlePoll, this::wake, handedOut::noticed);
        assignment = assignments.get();
        assignment.start(topic, List.of(this));
    }

    // ---- the assignment's side ------------------------------------------------------------------------

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
        changed.run();
    }

    /** Stops polling the slot; the stage completes once none of its deliveries holds a lease any more. */
    @Override
    public CompletionStage<Void> revoke(int slot) {
        SlotSession<T> session = slots.get(slot);
        if (session == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> revoked = session.markRevoked();
        releaseOnceIdle(session);
        return revoked;
    }

    @Override
    public Set<Integer> ownedSlots() {
        return slots.owned();
    }

    /**
     * Lets a slot being let go go once none of its deliveries holds a lease, and no poll of it is on its way; true
     * when it did.
     */
    private boolean releaseIfIdle(SlotSession<T> session) {
        if (session.revoking() && session.idle(System.nanoTime())) {
            slots.release(session);
            return true;
        }
        return false;
    }

    /**
     * As {@link #releaseIfIdle}, and when the slot is not idle yet, no later than its leases run out, as extended
     * by then: deliveries the program never ends keep it only that long. A poll on its way calls this as it ends.
     */
    private void releaseOnceIdle(SlotSession<T> session) {
        if (slots.get(session.slot) != session || releaseIfIdle(session)) {
            return;
        }
        long now = System.nanoTime();
        long leasesEnd = session.leasesEndNanos(now);
        if (session.revoking() && leasesEnd != 0) {
            CompletableFuture.delayedExecutor(Math.max(1, leasesEnd - now), TimeUnit.NANOSECONDS)
                    .execute(() -> releaseOnceIdle(session));
        }
    }

    /** A send made a message of {@code slot} due earlier than its planned poll. */
    private void wake(int slot) {
        SlotSession<T> session = slots.get(slot);
        if (session != null) {
            session.wake(topic.zones().isLocal(slot, zone));
            changed.run();
        }
    }

    // ---- polling, on the puller's thread ----------------------------------------------------------------

    /** The slots that may be polled now, starting at the next turn. */
    List<SlotSession<T>> dueSlots(long nowNanos) {
        List<SlotSession<T>> due = new ArrayList<>();
        for (SlotSession<T> session : slots.all()) {
            if (session.due(nowNanos)) {
                due.add(session);
            }
        }
        due.sort((a, b) -> Integer.compare(a.slot, b.slot));
        if (!due.isEmpty()) {
            Collections.rotate(due, -(turn++ % due.size()));
        }
        return due;
    }

    /** When a slot of this topic may next be polled, or {@code Long.MAX_VALUE} with no slot. */
    long nextChangeNanos(long nowNanos) {
        long next = Long.MAX_VALUE;
        boolean any = false;
        for (SlotSession<T> session : slots.all()) {
            if (session.revoking()) {
                continue;
            }
            long leases = session.leasesEndNanos(nowNanos);
            long at = leases != 0 ? leases : session.pollAtNanos(nowNanos);
            if (!any || at - next < 0) {
                next = at;
                any = true;
            }
        }
        return next;
    }

    /**
     * Polls the due slots for up to {@code want} messages in all, as {@link SlotChoice} orders them, and adds what
     * they give to {@code out}. In turn: each slot once, for its share of what is left. Most urgent first: pass after
     * pass, until enough came or no slot is due; a slot that gave messages is not due again until they end.
     */
    Taken<T> take(List<SlotSession<T>> due, int want, List<? super PulledDelivery<T>> out) {
        // the slots of the puller's own zone first
        List<SlotSession<T>> own = new ArrayList<>();
        List<SlotSession<T>> foreign = new ArrayList<>();
        for (SlotSession<T> session : due) {
            (topic.zones().isLocal(session.slot, zone) ? own : foreign).add(session);
        }
        Taken<T> first = takeFrom(own, want, out);
        if (foreign.isEmpty() || first.messages() >= want) {
            return first;
        }
        Taken<T> second = takeFrom(foreign, want - first.messages(), out);
        List<SlotSession<T>> more = new ArrayList<>(first.mayHaveMore());
        more.addAll(second.mayHaveMore());
        return new Taken<>(first.messages() + second.messages(), more,
                second.failure() != null ? second.failure() : first.failure(), first.succeeded() || second.succeeded());
    }

    private Taken<T> takeFrom(List<SlotSession<T>> due, int want, List<? super PulledDelivery<T>> out) {
        List<SlotChoice.Pick<T>> top = slots.top(due, Math.min(want, Puller.MAX_PER_CALL));
        if (top != null) {
            return takeTop(top, out);
        }
        int got = 0;
        RuntimeException failure = null;
        boolean succeeded = false;
        List<SlotSession<T>> more = new ArrayList<>();
        List<SlotSession<T>> left = new ArrayList<>(due);
        for (int pass = 0; got < want && !left.isEmpty() && pass < MAX_ORDERED_PASSES; pass++) {
            List<SlotChoice.Pick<T>> picks = slots.plan(left);
            for (int i = 0; i < picks.size() && got < want; i++) {
                SlotChoice.Pick<T> pick = picks.get(i);
                int share = Math.min(Puller.MAX_PER_CALL, Puller.ceilDiv(want - got, picks.size() - i));
                Batch<T> batch = poll(pick.session(), share, pick.floor());
                for (Delivery<T> delivery : batch.deliveries()) {
                    delivery.reportLateness(batch);
                    out.add((PulledDelivery<T>) delivery);
                }
                got += batch.deliveries().size();
                if (batch.failure() != null) {
                    failure = batch.failure();
                    left.remove(pick.session());
                } else {
                    succeeded = true;
                }
                if (batch.mayHaveMore()) {
                    more.add(pick.session());
                }
            }
            if (picks.size() == left.size() && picks.stream().allMatch(pick -> pick.floor() == null)) {
                // in turn: each slot had its poll, and the puller's next pass takes from those that may have more
                return new Taken<>(got, more, failure, succeeded);
            }
            long now = System.nanoTime();
            left.removeIf(session -> !session.due(now));
        }
        return new Taken<>(got, List.of(), failure, succeeded);
    }

    /** Polls a slot; one revoked while the poll was on its way is let go once what the poll took has ended. */
    private Batch<T> poll(SlotSession<T> session, int want, @Nullable Long floor) {
        Batch<T> batch = session.poll(want, floor);
        releaseOnceIdle(session);
        return batch;
    }

    /** Takes the most urgent messages over the slots as {@link SlotChoice#top} planned, and puts them in order. */
    private Taken<T> takeTop(List<SlotChoice.Pick<T>> picks, List<? super PulledDelivery<T>> out) {
        List<PulledDelivery<T>> got = new ArrayList<>();
        List<SlotSession<T>> more = new ArrayList<>();
        RuntimeException failure = null;
        boolean succeeded = false;
        for (SlotChoice.Pick<T> pick : picks) {
            Batch<T> batch = poll(pick.session(), pick.want(), pick.floor());
            if (batch.deliveries().size() == pick.want()) {
                more.add(pick.session());
            }
            for (Delivery<T> delivery : batch.deliveries()) {
                delivery.reportLateness(batch);
                got.add((PulledDelivery<T>) delivery);
            }
            if (batch.failure() != null) {
                failure = batch.failure();
            } else {
                succeeded = true;
            }
        }
        got.sort(Comparator.comparingLong((PulledDelivery<T> delivery) -> delivery.priority().orElse(0)).reversed());
        out.addAll(got);
        // a slot that gave all it was asked may hold less urgent ones, for what the other topics leave of the count
        return new Taken<>(got.size(), more, failure, succeeded);
    }

    // ---- closing ---------------------------------------------------------------------------------------

    /** Deliveries handed out and not ended, still under their lease. */
    int inFlight() {
        long now = System.nanoTime();
        int count = 0;
        for (SlotSession<T> session : slots.all()) {
            for (Delivery<T> delivery : session.outstanding()) {
                count += delivery.leaseOver(now) ? 0 : 1;
            }
        }
        return count;
    }

    /**
     * Hands back every delivery not ended, unstarted, then gives the slots back within {@code bound}.
     */
    StopReport close(Duration bound) {
        running = false;
        wakes.close();
        int leftToLeases = 0;
        for (SlotSession<T> session : slots.all()) {
            List<PulledDelivery<T>> unended = new ArrayList<>();
            for (Delivery<T> delivery : session.outstanding()) {
                PulledDelivery<T> mine = (PulledDelivery<T>) delivery;
                if (!mine.isSettled() && !mine.leaseOver(System.nanoTime())) {
                    unended.add(mine);
                }
            }
            if (!unended.isEmpty()) {
                try {
                    // one that the program ends meanwhile is its to end
                    settlement.releaseUnended(unended);
                } catch (RuntimeException e) {
                    leftToLeases += unended.size();
                    log.debug("puller {} could not hand back {} message(s) of {}: {}", id, unended.size(),
                            session.keys.hashTag(), e.toString());
                }
            }
            session.forgetOutstanding();
            slots.release(session);
        }
        StopReport released = assignment == null ? StopReport.NOTHING : assignment.close(bound);
        return new StopReport(released.took(), released.slotsReleased(), released.fencingTokensLeft(),
                released.ownerZnodesLeft(), leftToLeases, released.unreachable());
    }
}
