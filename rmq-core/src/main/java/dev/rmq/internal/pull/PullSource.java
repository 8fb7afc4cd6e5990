package dev.rmq.internal.pull;

import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.consumer.StopReport;
import dev.rmq.internal.consumer.ConsumerEvents;
import dev.rmq.internal.consumer.HandlerFailures;
import dev.rmq.internal.consumer.RateGate;
import dev.rmq.internal.consumer.SlotTable;
import dev.rmq.internal.consumer.SlotCalls;
import dev.rmq.internal.consumer.WakeSubscription;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
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
 * One topic of a puller: a slot owner in the topic's assignment that polls the slots it holds when the puller
 * asks, and ends the deliveries it handed out. Slot polls run on the puller's thread under its lock; ends, wake-ups
 * and the assignment's calls come from any thread.
 */
public final class PullSource<T> implements SlotOwner {

    private static final Logger log = LoggerFactory.getLogger(PullSource.class);

    /** What {@link #take} got from one slot. */
    record Taken(int messages, boolean mayHaveMore, RuntimeException failure) {
    }

    private final String id;
    private final TopicDefinition topic;
    private final KeyLayout keys;
    private final SlotCalls calls;
    private final RateGate rate;
    private final WakeSubscription wakes;
    private final Supplier<? extends SlotAssignment> assignments;
    private final PayloadCodec codec;
    private final Type payloadType;
    private final RmqMetrics metrics;
    private final Duration idlePoll;
    /** The zone the puller runs in, null for none: its own zone's slots are polled first. */
    private final String zone;
    /** Tells the puller that something changed: a slot came, a wake-up arrived, a slot's deliveries ended. */
    private final Runnable changed;
    private final SlotTable<PullSlot> slots;
    /** Logs messages that cannot be decoded, and the at-most-once ones the program fails, rate-limited. */
    private final HandlerFailures failures;
    private final PullSettlement<T> settlement;
    private final boolean atMostOnce;
    private volatile boolean running;
    private SlotAssignment assignment;
    /** Where the next turn over the slots starts. Guarded by the puller's lock. */
    private int turn;

    public PullSource(String id, TopicDefinition topic, KeyLayout keys, SlotCalls calls, RateGate rate, WakeSubscription wakes,
               Supplier<? extends SlotAssignment> assignments, PayloadCodec codec, Type payloadType, RmqMetrics metrics,
               ConsumerEvents events, Duration idlePoll, String zone, Runnable changed) {
        this.zone = zone;
        this.id = id;
        this.topic = topic;
        this.keys = keys;
        this.calls = calls;
        this.rate = rate;
        this.wakes = wakes;
        this.assignments = assignments;
        this.codec = codec;
        this.payloadType = payloadType;
        this.metrics = metrics;
        this.idlePoll = idlePoll;
        this.changed = changed;
        this.atMostOnce = topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE;
        this.slots = new SlotTable<>(topic, "puller", id, metrics, events);
        this.failures = new HandlerFailures(topic);
        this.settlement = new PullSettlement<>(id, topic, calls, metrics, events, failures, state -> {
            releaseIfIdle(state);
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

    void start() {
        running = true;
        wakes.open(id, idlePoll, this::wake);
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
        slots.add(new PullSlot(slot, keys.slot(topic.name(), slot), fencingToken, System.nanoTime() + holdOff.toNanos()));
        changed.run();
    }

    /** Stops polling the slot; the stage completes once none of its deliveries holds a lease any more. */
    @Override
    public CompletionStage<Void> revoke(int slot) {
        PullSlot state = slots.get(slot);
        if (state == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> revoked = state.markRevoked();
        releaseIfIdle(state);
        long leasesEnd = state.leasesEndNanos(System.nanoTime());
        if (leasesEnd != 0) {
            // deliveries the program never ends keep the slot only until their leases run out
            long delay = Math.max(1, leasesEnd - System.nanoTime());
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> slots.release(state));
        }
        return revoked;
    }

    @Override
    public Set<Integer> ownedSlots() {
        return slots.owned();
    }

    private void releaseIfIdle(PullSlot state) {
        if (state.revoked != null && !state.busy(System.nanoTime())) {
            slots.release(state);
        }
    }

    /** A send made a message of {@code slot} due earlier than its planned poll. */
    private void wake(int slot) {
        PullSlot state = slots.get(slot);
        if (state != null) {
            // without coordination, another zone's slot waits a moment for that zone's own consumers
            boolean first = state.isFenced() || topic.zones().isLocal(slot, zone);
            state.nextPollNanos = System.nanoTime() + (first ? 0 : WakeSubscription.FOREIGN_ZONE_GRACE_NANOS);
            changed.run();
        }
    }

    // ---- polling, on the puller's thread ----------------------------------------------------------------

    /** The slots that may be polled now, starting at the next turn. */
    List<PullSlot> dueSlots(long nowNanos) {
        List<PullSlot> due = new ArrayList<>();
        for (PullSlot state : slots.all()) {
            if (state.due(nowNanos)) {
                due.add(state);
            }
        }
        due.sort((a, b) -> Integer.compare(a.slot, b.slot));
        if (!due.isEmpty()) {
            Collections.rotate(due, -(turn++ % due.size()));
            // the slots of the puller's own zone first, each group still in turn
            due.sort(Comparator.comparing(state -> !topic.zones().isLocal(state.slot, zone)));
        }
        return due;
    }

    /** When a slot of this topic may next be polled, or {@code Long.MAX_VALUE} with no slot. */
    long nextChangeNanos(long nowNanos) {
        long next = Long.MAX_VALUE;
        boolean any = false;
        for (PullSlot state : slots.all()) {
            if (state.revoked != null) {
                continue;
            }
            long leases = state.leasesEndNanos(nowNanos);
            long at = leases != 0 ? leases : Math.max(state.nextPollNanos - nowNanos, state.holdUntilNanos - nowNanos)
                    + nowNanos;
            if (!any || at - next < 0) {
                next = at;
                any = true;
            }
        }
        return next;
    }

    /** Polls one slot for up to {@code want} messages and adds what it got to {@code out}. */
    Taken take(PullSlot state, int want, List<? super PulledDelivery<T>> out) {
        int allowed = rate.take(want);
        if (allowed == 0) {
            state.nextPollNanos = rate.shutUntilNanos();
            return new Taken(0, false, null);
        }
        SlotCalls.Poll poll;
        try {
            poll = calls.poll(state.keys, state.fence, allowed);
        } catch (SlotFencedException e) {
            rate.giveBack(allowed);
            slots.fencedAtPoll(state, e);
            return new Taken(0, false, null);
        } catch (RuntimeException e) {
            rate.giveBack(allowed);
            slots.pollFailed(state, e, !running);
            return new Taken(0, false, e);
        }
        PrepareCall.Polled polled = poll.polled();
        rate.giveBack(allowed - polled.messages().size());
        slots.recordPoll(state, polled);
        long now = System.nanoTime();
        state.nextPollNanos = polled.waitMs() == 0 ? now : now + TimeUnit.MILLISECONDS.toNanos(polled.waitMs());
        long leaseEnds = poll.receivedNanos() + TimeUnit.MILLISECONDS.toNanos(polled.token() / 1000 - poll.redisNowMs());
        List<AckCall.Ack> undecodable = new ArrayList<>();
        int delivered = 0;
        for (PrepareCall.Message message : polled.messages()) {
            PulledDelivery<T> delivery;
            try {
                delivery = decode(state, message, polled.token(), leaseEnds);
            } catch (MalformedEnvelopeException | PayloadCodecException e) {
                undecodable.add(new AckCall.Ack(AckCall.Op.UNDECODABLE, message.key(), polled.token(),
                        "cannot decode: " + e.getMessage()));
                continue;
            }
            delivery.dueTime().ifPresent(due -> metrics.lateness(topic, poll.redisNowMs()
                    + TimeUnit.NANOSECONDS.toMillis(now - poll.receivedNanos()) - due.toEpochMilli()));
            if (!atMostOnce) {
                state.outstanding.add(delivery);
            }
            out.add(delivery);
            delivered++;
        }
        buryUndecodable(state, undecodable);
        return new Taken(delivered, polled.messages().size() == allowed && polled.waitMs() == 0, null);
    }

    @SuppressWarnings("unchecked")
    private PulledDelivery<T> decode(PullSlot state, PrepareCall.Message message, long token, long leaseEnds) {
        Envelope envelope = Envelope.decode(message.envelope());
        T payload = (T) codec.decode(envelope.payload(), payloadType);
        return new PulledDelivery<>(settlement, state, topic.type(), message.key(), envelope, message.envelope(), payload,
                atMostOnce ? 0 : token, leaseEnds);
    }

    private void buryUndecodable(PullSlot state, List<AckCall.Ack> undecodable) {
        if (undecodable.isEmpty()) {
            return;
        }
        try {
            if (!atMostOnce) {
                calls.ack(state.keys, state.fence, undecodable);
            }
            undecodable.forEach(ack -> failures.undecodable(ack.key(), state.slot, ack.error()));
        } catch (RuntimeException e) {
            log.warn("puller {}: could not bury {} undecodable message(s) of {}; their leases will recover them: {}", id,
                    undecodable.size(), state.keys.hashTag(), e.toString());
        }
    }


    // ---- closing ---------------------------------------------------------------------------------------

    /** Deliveries handed out and not ended, still under their lease. */
    int inFlight() {
        long now = System.nanoTime();
        int count = 0;
        for (PullSlot state : slots.all()) {
            for (PulledDelivery<?> delivery : state.outstanding) {
                count += delivery.leaseEndsNanos() - now > 0 ? 1 : 0;
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
        for (PullSlot state : slots.all()) {
            List<PulledDelivery<T>> unended = new ArrayList<>();
            for (PulledDelivery<?> delivery : state.outstanding) {
                @SuppressWarnings("unchecked")
                PulledDelivery<T> mine = (PulledDelivery<T>) delivery;
                if (!mine.isSettled() && mine.leaseEndsNanos() - System.nanoTime() > 0) {
                    unended.add(mine);
                }
            }
            if (!unended.isEmpty()) {
                try {
                    settlement.settleAll(unended, AckCall.Op.RELEASE, "");
                } catch (RuntimeException e) {
                    leftToLeases += unended.size();
                    log.debug("puller {} could not hand back {} message(s) of {}: {}", id, unended.size(),
                            state.keys.hashTag(), e.toString());
                }
            }
            state.outstanding.clear();
            slots.release(state);
        }
        StopReport released = assignment == null ? StopReport.NOTHING : assignment.close(bound);
        return new StopReport(released.took(), released.slotsReleased(), released.fencingTokensLeft(),
                released.ownerZnodesLeft(), leftToLeases, released.unreachable());
    }
}
