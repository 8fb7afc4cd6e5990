package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One slot a consumer holds, and everything done with it: polling it, the deliveries taken and not ended, their
 * endings (gathered and sent in one call, or sent at once), their leases, the fencing token and when Redis last
 * confirmed it, and letting the slot go. A container's worker and a puller drive sessions; what differs between
 * the delivery guarantees is the session's {@link Guarantee}, which no driver asks about.
 *
 * <p>Polls, gathering and flushing run on the driving thread. The calls that quote lease tokens (an ending, an
 * extension) may come from any thread, and take turns, so that each quotes the token the one before it got back.
 *
 * @param <T> the payload type
 */
public final class SlotSession<T> {

    /**
     * A fenced session re-checks its token before a handler when this long has passed since Redis last confirmed
     * it, so a consumer resuming from a long pause cannot start a message after losing its slot.
     */
    private static final long FENCE_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Sessions<T> owner;
    public final int slot;
    public final SlotKeys keys;
    /** The fencing token the slot's scripts check; empty when unfenced. */
    final String fence;
    private final PollTiming timing;
    private final LettingGo lettingGo = new LettingGo();
    /** When Redis last confirmed the fencing token (a poll, an ending or an extension went through). */
    private volatile long verifiedNanos;
    /** Set once Redis refused the fencing token: the slot is another consumer's. */
    private volatile boolean lost;
    /** The deliveries taken and not ended, while they hold leases. */
    private final Outstanding<T> out = new Outstanding<>();
    /** Endings gathered for the next {@link #flush}; touched by the driving thread only. */
    private final List<Ending> gathered = new ArrayList<>();
    /** Held by the calls that quote lease tokens. */
    private final Object quoting = new Object();

    SlotSession(Sessions<T> owner, int slot, SlotKeys keys, String fence, long holdUntilNanos) {
        this.owner = owner;
        this.slot = slot;
        this.keys = keys;
        this.fence = fence == null ? "" : fence;
        this.timing = new PollTiming(holdUntilNanos);
    }

    Sessions<T> owner() {
        return owner;
    }

    public TopicDefinition topic() {
        return owner.topic();
    }

    /** Whether each delivery holds a lease in Redis until it ends; not at most once, where it left Redis when taken. */
    public boolean leased() {
        return owner.guarantee().leased();
    }

    public boolean isFenced() {
        return !fence.isEmpty();
    }

    /** Whether Redis has refused this session's fencing token: the slot is another consumer's now. */
    public boolean lost() {
        return lost;
    }

    public long nextPollNanos() {
        return timing.nextPollNanos();
    }

    /** When the slot may be polled, no earlier than the hold-off of a takeover. */
    public long pollAtNanos(long nowNanos) {
        return timing.pollAtNanos(nowNanos);
    }

    /** Whether the slot is being let go, or has been. */
    public boolean revoking() {
        return lettingGo.marked();
    }

    /** Marks the slot to be let go and returns the stage that completes once it is. */
    public CompletableFuture<Void> markRevoked() {
        return lettingGo.mark();
    }

    /**
     * A send made a message due earlier than the planned poll, or more urgent than the slot's head: poll at once,
     * unless the slot is still held off after a takeover, and read the head again. Without coordination, a slot of
     * another zone waits a moment for that zone's own consumers.
     */
    public void wake(boolean localZone) {
        timing.wake(isFenced() || localZone ? 0 : WakeSubscription.FOREIGN_ZONE_GRACE_NANOS);
    }

    /** Whether the slot may be polled now: not being let go, its time come, and no delivery of it under lease. */
    public boolean due(long nowNanos) {
        return !lettingGo.marked() && timing.come(nowNanos) && !busy(nowNanos);
    }

    /**
     * Whether the slot may be let go now: no poll on its way, whose deliveries would come after it, and no delivery
     * under lease. A poll does not start once the slot is being let go.
     */
    public boolean idle(long nowNanos) {
        return lettingGo.noPollOnItsWay() && !busy(nowNanos);
    }

    /** Whether a delivery of this slot still runs under its lease. */
    public boolean busy(long nowNanos) {
        return leasesEndNanos(nowNanos) != 0;
    }

    /** When the last lease of the deliveries still out ends, or 0 when none runs any more. */
    public long leasesEndNanos(long nowNanos) {
        return out.leasesEndNanos(nowNanos);
    }

    /** The deliveries taken and not ended that still hold a lease. */
    public Collection<Delivery<T>> outstanding() {
        return out.view();
    }

    // ---- polling, on the driving thread -------------------------------------------------------------------

    /** How urgent the slot's next due message is, as last seen: NaN when not known (see {@link SlotChoice}). */
    public double urgency() {
        return timing.urgency();
    }

    /**
     * Polls the slot for up to {@code want} messages, within the topic's rate limit, and decodes them; with a
     * {@code floor} score, only those at least as urgent. A message that cannot be decoded is buried at once. When
     * the slot turns out to be another consumer's, it is let go. Once the slot is being let go it takes nothing: a
     * revoke on another thread waits for a poll on its way ({@link #idle}).
     */
    public Batch<T> poll(int want, @Nullable Long floor) {
        if (!lettingGo.pollStarts()) {
            // being let go: the endings gathered go alone, while the fence still holds
            flush();
            return Batch.none();
        }
        try {
            return pollHeld(want, floor);
        } finally {
            lettingGo.pollEnded();
        }
    }

    private Batch<T> pollHeld(int want, @Nullable Long floor) {
        timing.polling();
        RateGate rate = owner.rate();
        int allowed;
        try {
            allowed = rate.take(want);
        } catch (RuntimeException e) {
            // the rate limit's bucket could not be read: a failed poll, whose backoff the endings gathered do not wait
            flush();
            owner.pollFailed(this, e);
            return Batch.failed(e);
        }
        if (allowed == 0) {
            // the topic's rate limit: no token until then, for any slot of this consumer
            timing.notBefore(rate.shutUntilNanos());
            flush();
            return Batch.none();
        }
        // the endings gathered of the last batch go with the poll, sparing a call of their own; all of them, so the
        // list is emptied, not searched (a removal by equality would compare every pair: half a million for 1,000)
        List<Ending> carried = List.of();
        if (owner.guarantee().leased()) {
            carried = List.copyOf(gathered);
            gathered.clear();
        }
        SlotCalls.Poll poll;
        try {
            synchronized (quoting) {
                poll = owner.calls().poll(keys, fence, allowed, floor, AtLeastOnce.acks(carried));
            }
            verifiedNanos = poll.sentNanos();
        } catch (SlotFencedException e) {
            rate.giveBack(allowed);
            lost = true;
            forgetEnded(carried);
            owner.fencedAtPoll(this, e, carried.size());
            return Batch.none();
        } catch (RuntimeException e) {
            rate.giveBack(allowed);
            if (!carried.isEmpty()) {
                owner.endingFailed(this, carried, e);
            }
            forgetEnded(carried);
            owner.pollFailed(this, e);
            return Batch.failed(e);
        }
        PrepareCall.Polled polled = poll.polled();
        AtLeastOnce.report(this, carried, polled.ended());
        forgetEnded(carried);
        rate.giveBack(allowed - polled.messages().size());
        timing.polled(polled, topic().type(), owner.calls().idlePollNanos(), poll.sentNanos());
        owner.recordPoll(this, polled);
        // from when the call went out: a pause while it was out may already have used up the lease
        long leaseEnds = poll.sentNanos() + TimeUnit.MILLISECONDS.toNanos(polled.token() / 1000 - poll.redisNowMs());
        List<Delivery<T>> deliveries = owner.decodeAll(this, polled, leaseEnds);
        if (owner.guarantee().leased()) {
            // what the program never ended and whose lease ran out is let go: Redis delivers it again
            out.forgetLeaseOver(System.nanoTime());
            out.addAll(deliveries);
        }
        return new Batch<>(deliveries, poll.redisNowMs(), poll.receivedNanos(),
                polled.messages().size() == allowed && polled.waitMicros() == 0, null);
    }

    PollTiming timing() {
        return timing;
    }

    // ---- endings -------------------------------------------------------------------------------------------

    /** Gathers an ending for the next {@link #flush}. */
    public void gather(Ending ending) {
        gathered.add(ending);
    }

    /** Gathers the ending of a delivery that was never started: it goes back at its place. */
    public void gatherUnstarted(Delivery<?> delivery) {
        if (!delivery.leaseLost()) {
            gathered.add(owner.guarantee().unstarted(delivery));
        }
    }

    /**
     * At most once: the batch's deadline passed unrenewed before {@code unstarted} of its messages started, so they go
     * back (a consumer that takes the slot over may poll it from then on). Said once per batch.
     */
    public void outlivedHold(int unstarted) {
        owner.outlivedHold(this, unstarted);
    }

    /** Gathers the ending of a delivery whose handler the stop cut off. */
    public void gatherCutOff(Delivery<?> delivery) {
        gathered.add(owner.guarantee().cutOff(delivery));
    }

    /** Whether the lease of a delivery whose ending is gathered and not sent yet ends before {@code nanos}. */
    public boolean gatheredLeaseEndsBefore(long nanos) {
        return leased() && Ending.anyLeaseEndsBefore(gathered, nanos);
    }

    /** How many endings are gathered and not sent yet. */
    public int gathered() {
        return gathered.size();
    }

    /**
     * Sends the endings gathered so far. Returns false when the slot turned out to be lost: the caller must let it
     * go. A call that fails otherwise leaves the deliveries to their leases; while the consumer stops, they are
     * counted as left to lease recovery instead of logged.
     */
    public boolean flush() {
        if (gathered.isEmpty()) {
            return !lost;
        }
        List<Ending> sent = List.copyOf(gathered);
        gathered.clear();
        try {
            end(sent);
        } catch (SlotFencedException e) {
            // lost is set: the slot is another consumer's
        } catch (RuntimeException e) {
            owner.endingFailed(this, sent, e);
        }
        return !lost;
    }

    /**
     * Ends deliveries of this slot in one call and reports each outcome.
     *
     * @throws SlotFencedException when the slot is another consumer's now
     * @throws RuntimeException    when Redis did not answer: the outcome is unknown, and the leases settle it
     */
    public List<AckOutcome> end(List<Ending> endings) {
        try {
            synchronized (quoting) {
                if (lost && owner.guarantee().leased()) {
                    throw new SlotFencedException("the slot " + keys.hashTag() + " was already taken over", null);
                }
                return owner.guarantee().end(this, endings);
            }
        } catch (SlotFencedException e) {
            lostTo("ack", endings.size());
            throw e;
        } finally {
            forgetEnded(endings);
        }
    }

    /** Forgets the deliveries of endings sent (whatever became of them), and tells the driver. */
    private void forgetEnded(List<Ending> endings) {
        if (!endings.isEmpty()) {
            endings.stream().map(Ending::delivery).filter(Objects::nonNull).forEach(out::remove);
            owner.ended(this);
        }
    }

    /** A delivery whose lease ran out before the program ended it: nothing is sent, and it is delivered again. */
    public void expiredBeforeEnding(Delivery<?> delivery, @Nullable String reason) {
        owner.acknowledged(this, delivery.key(), AckOutcome.STALE, reason == null ? "" : reason);
    }

    // ---- leases and the fence ------------------------------------------------------------------------------

    /** Whether the fence needs Redis to confirm it before the next handler starts. */
    public boolean fenceUnconfirmed(long nowNanos) {
        return isFenced() && nowNanos - verifiedNanos > FENCE_RECHECK_NANOS;
    }

    /**
     * Has Redis confirm that this consumer still owns the slot, sending the endings gathered (which checks it) or
     * an empty extension: false when the slot was lost. A call that fails says nothing, and the driver carries on.
     */
    public boolean confirmFence() {
        if (owner.guarantee().leased() && !gathered.isEmpty()) {
            return flush();
        }
        return renew(List.of()) != Renewal.FENCED;
    }

    /** Renews the leases of {@code deliveries} by a whole lease; see {@link LeaseRenewal#renew}. */
    public Renewal renew(List<? extends Delivery<?>> deliveries) {
        return LeaseRenewal.renew(this, deliveries);
    }

    /**
     * A handler's or the program's own extension of one delivery; see {@link OneLease#extend}.
     *
     * @throws SlotFencedException when the slot is another consumer's now
     */
    public long extendOne(Delivery<?> delivery, Duration duration) {
        return OneLease.extend(this, delivery, duration);
    }

    /**
     * A handler's progress report for one delivery; see {@link OneLease#progress}.
     *
     * @throws SlotFencedException when the slot is another consumer's now
     */
    public long reportProgress(Delivery<?> delivery, int percent, String note, @Nullable Duration lease) {
        return OneLease.progress(this, delivery, percent, note, lease);
    }

    /** The lock of the calls that quote lease tokens: one at a time, so that each sees the token before it. */
    Object quoting() {
        return quoting;
    }

    /** Redis confirmed the fencing token in a call that went out at {@code nanos}. */
    void verified(long nanos) {
        verifiedNanos = nanos;
    }

    /** Redis refused the fencing token during {@code during}: the slot is another consumer's, said once. */
    synchronized void lostTo(String during, int messages) {
        if (!lost) {
            lost = true;
            owner.fenced(this, during, messages);
        }
    }

    /** Forgets deliveries the program has ended, or given up on, and tells the driver. */
    public void forget(Collection<? extends Delivery<?>> deliveries) {
        // an ending already let them go and said so; telling the driver twice would wake a waiting poll for nothing
        if (out.removeAll(deliveries)) {
            owner.ended(this);
        }
    }

    /** Forgets the deliveries handed back or left to their leases; those with gathered endings stay, renewable. */
    public void forgetOutstanding() {
        out.retainEndedBy(gathered);
    }
}
