package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.internal.script.ProgressCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.internal.script.PutbackCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.script.SlotHeads;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * A consumer's script calls on the slots of one topic: poll (prepare), acknowledge, extend leases. Each waits
 * for its reply, at most {@link Futures#BACKSTOP}.
 */
public final class SlotCalls {

    /**
     * A poll's reply, with when it arrived.
     *
     * @param polled        what the script returned
     * @param redisNowMs    the Redis clock when the script ran, in ms
     * @param sentNanos     when the call went out, on this JVM's nano clock: leases and the fence count from then, so
     *                      that a pause of the JVM while the call was out (a GC, a SIGSTOP) counts against them
     * @param receivedNanos when the reply arrived, on this JVM's nano clock
     */
    public record Poll(PrepareCall.Polled polled, long redisNowMs, long sentNanos, long receivedNanos) {
    }

    private final ScriptRunner scripts;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final RetryPolicy policy;
    private final String wakeChannel;
    private final OutageWatch outage;
    /** How far the Redis clock was ahead of this host's at the last poll's reply, in ms (negative: behind). */
    private volatile long redisAheadMs;

    public SlotCalls(ScriptRunner scripts, TopicDefinition topic, ConsumerSettings settings, String wakeChannel,
              OutageWatch outage) {
        this.outage = outage;
        this.scripts = scripts;
        this.topic = topic;
        this.settings = settings;
        this.policy = RetryPolicy.of(topic);
        this.wakeChannel = wakeChannel;
    }

    /** How long a slot's wake key outlives its planned poll: the idle poll (see prepare.lua). */
    public long idlePollNanos() {
        return settings.idlePoll().toNanos();
    }

    /**
     * Polls for up to {@code batch} messages; with a {@code floor} score, only those at least as urgent (see
     * {@link PrepareCall#floor()}). The {@code acks} end deliveries of the slot first, in the same call.
     */
    public Poll poll(SlotKeys keys, String fence, int batch, @Nullable Long floor, List<AckCall.Ack> acks) {
        long leaseMs = topic.leaseTimeout().toMillis();
        PrepareCall call = new PrepareCall(policy, batch, leaseMs, fence, settings.idlePoll().toMillis(),
                settings.recoverLimit(), topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE, floor, acks);
        long sent = System.nanoTime();
        PrepareCall.Polled polled = watched(() -> Futures.joinBounded(scripts.run(keys, call)));
        // the token is the lease deadline the script gave: its clock plus the lease
        long redisNowMs = polled.token() / 1000 - leaseMs;
        // read when the reply came, after the script ran: the estimate trails Redis's clock by up to a round trip
        redisAheadMs = redisNowMs - System.currentTimeMillis();
        return new Poll(polled, redisNowMs, sent, System.nanoTime());
    }

    /**
     * The Redis clock now, in epoch ms, as this host's clock and the last poll's reply tell it: behind Redis's by up
     * to a round trip, never ahead by this host's skew. This host's clock before the first poll.
     */
    public long redisNowMs() {
        return System.currentTimeMillis() + redisAheadMs;
    }

    /**
     * The scores of each slot's {@code n} most urgent waiting messages, most urgent first; see {@link
     * ScriptRunner#tops}.
     */
    public List<SlotHeads.Heads> tops(List<SlotKeys> slots, int n) {
        return watched(() -> Futures.joinBounded(scripts.tops(slots, !topic.type().isTimed(), n)));
    }

    /**
     * The priorities of each slot's delayed messages due by {@code nowMs}, up to {@code n} a slot; see {@link
     * ScriptRunner#duePriorities}.
     */
    public List<List<Long>> duePriorities(List<SlotKeys> slots, long nowMs, int n) {
        return watched(() -> Futures.joinBounded(scripts.duePriorities(slots, nowMs, n)));
    }

    /** How the consumer chooses among its slots. */
    public SlotOrder slotOrder() {
        return settings.slotOrder();
    }

    public List<AckOutcome> ack(SlotKeys keys, String fence, List<AckCall.Ack> acks) {
        return watched(() -> Futures.joinBounded(scripts.run(keys, new AckCall(policy, fence, wakeChannel, keys.slot(), acks))));
    }

    /** Hands messages an at-most-once worker took and never started back to waiting. */
    public void putback(SlotKeys keys, List<PrepareCall.Message> messages) {
        watched(() -> Futures.joinBounded(scripts.run(keys, new PutbackCall(topic.type(), wakeChannel, keys.slot(), messages))));
    }

    /** Each delivery's new token, or 0 where its lease was already lost. */
    public List<Long> extend(SlotKeys keys, String fence, Duration lease, List<ExtendCall.Lease> leases) {
        return extend(keys, fence, lease, false, leases);
    }

    /**
     * Each delivery's new token, or 0 where its lease was already lost; with {@code hold}, the slot's at-most-once
     * batch deadline moves to the new lease's end.
     */
    public List<Long> extend(SlotKeys keys, String fence, Duration lease, boolean hold,
                             List<ExtendCall.Lease> leases) {
        return watched(() -> Futures.joinBounded(scripts.run(keys, new ExtendCall(Math.max(1, lease.toMillis()), fence,
                hold, leases))));
    }

    /**
     * Records a delivery's progress, lengthening its lease to {@code lease} from now unless it is null; returns its
     * token after the report, 0 when its lease was already lost, or {@link ExtendCall#CANCELLED}.
     */
    public long progress(SlotKeys keys, String fence, String key, long token, @Nullable Duration lease, int percent,
                         String note) {
        return watched(() -> Futures.joinBounded(scripts.run(keys, new ProgressCall(fence, key, token,
                lease == null ? 0 : Math.max(1, lease.toMillis()), percent, note))));
    }

    /** Whether a cancel removed the delivery of {@code key} that holds lease {@code token} (see cancel.lua). */
    public boolean cancelled(SlotKeys keys, String key, long token) {
        Double marked = watched(() -> Futures.joinBounded(scripts.cancelMark(keys, key)));
        return marked != null && marked.longValue() == token;
    }

    /** Runs a call under the container's outage watch. */
    private <R> R watched(Supplier<R> call) {
        long id = outage.begin();
        try {
            R reply = call.get();
            outage.succeeded(id);
            return reply;
        } catch (RuntimeException e) {
            outage.failed(id, e);
            throw e;
        }
    }
}
