package dev.rmq.internal.slot;

import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.exceptions.RmqException;
import dev.rmq.consumer.Progress;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.schedule.TickLateness;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.topic.TopicType;
import dev.rmq.internal.validation.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One delivery of a message, taken from its {@link SlotSession}: the lease token its ending must quote, and when
 * that lease ends.
 */
public class Delivery<T> implements RmqMessage<T> {

    private final SlotSession<T> session;
    private final String topic;
    private final TopicType type;
    private final String key;
    private final Envelope envelope;
    /** The envelope's bytes as the poll returned them, for handing an at-most-once message back unstarted. */
    private final byte[] rawEnvelope;
    private final T payload;
    /** When it was handed out, for the consume timer. */
    private final long deliveredNanos = System.nanoTime();
    private volatile long token;
    /** When its lease ends, on this JVM's nano clock (estimated from the Redis clock at the poll). */
    private volatile long leaseEndsNanos;
    /** Whether Redis said that a cancel removed it: its ending then reports the cancel, and nothing renews it. */
    private volatile boolean cancelled;

    public Delivery(SlotSession<T> session, String key, Envelope envelope, byte[] rawEnvelope, T payload,
                       long token, long leaseEndsNanos) {
        this.session = session;
        this.topic = session.topic().name();
        this.type = session.topic().type();
        this.key = key;
        this.envelope = envelope;
        this.rawEnvelope = rawEnvelope;
        this.payload = payload;
        this.token = token;
        this.leaseEndsNanos = leaseEndsNanos;
    }

    /** The session of the slot it was taken from. */
    public final SlotSession<T> session() {
        return session;
    }

    public final long deliveredNanos() {
        return deliveredNanos;
    }

    public final long leaseEndsNanos() {
        return leaseEndsNanos;
    }

    /** Whether its lease, unless lost already, ends before {@code nanos}, by this JVM's estimate. */
    public final boolean leaseEndsBefore(long nanos) {
        return !leaseLost() && leaseEndsNanos - nanos < 0;
    }

    /**
     * Whether its lease has run out by {@code nowNanos}, by this JVM's estimate. At most once there is no lease to run
     * out: the message left Redis when it was taken.
     */
    public final boolean leaseOver(long nowNanos) {
        return session.leased() && leaseEndsNanos - nowNanos <= 0;
    }

    /**
     * At most once: whether the deadline of its batch has passed by {@code nowNanos}, by this JVM's estimate. Redis
     * keeps that deadline (the slot's hold) in place of leases: a consumer that takes the slot over polls it once the
     * deadline is over, so no handler of the batch may start after it.
     */
    public final boolean holdOver(long nowNanos) {
        return !session.leased() && leaseEndsNanos - nowNanos <= 0;
    }

    /**
     * A renewal, here or by another puller that extended the delivery by its reference: the new token, and how long
     * from {@code fromNanos} the lease now runs. A cancelled delivery keeps its token, which its ending quotes so
     * that Redis reports the cancel. A zero {@code lease} (a call that kept the lease) leaves the deadline as it is.
     */
    public final void renewed(long newToken, long fromNanos, Duration lease) {
        if (newToken == ExtendCall.CANCELLED) {
            cancelled = true;
            return;
        }
        this.token = newToken;
        if (newToken != 0 && !lease.isZero()) {
            this.leaseEndsNanos = fromNanos + lease.toNanos();
        }
    }

    public final long token() {
        return token;
    }

    public final byte[] rawEnvelope() {
        return rawEnvelope;
    }

    public final boolean leaseLost() {
        return token == 0;
    }

    /** Whether its lease is worth renewing: neither lost nor cancelled, as far as this consumer knows. */
    public final boolean renewable() {
        return token != 0 && !cancelled;
    }

    @Override
    public boolean cancelled() {
        if (!cancelled && token != 0 && session.leased()) {
            // one read of the slot's cancel marks (see cancel.lua)
            cancelled = session.owner().calls().cancelled(session.keys, key, token);
        }
        return cancelled;
    }

    /**
     * Reports how late this delivery is, by the Redis clock at the poll of {@code batch} and the time passed since;
     * and for a schedule's tick, how late against the tick's instant.
     */
    public final void reportLateness(Batch<?> batch) {
        if (!type.isTimed()) {
            return;
        }
        // without dueTime()'s Optional and Instant: this runs for every delivery
        long dueMs = dueMs();
        long nowMs = batch.redisNowMs() + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - batch.receivedNanos());
        session.owner().metrics().lateness(session.topic(), nowMs - dueMs);
        TickLateness.report(session.owner().metrics(), session.topic(), key, headers(), nowMs);
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public int slot() {
        return session.slot;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public int attempt() {
        return envelope.deliveredAttempt();
    }

    @Override
    public int releases() {
        return envelope.releases();
    }

    @Override
    public Optional<Instant> dueTime() {
        return type.isTimed() ? Optional.of(Instant.ofEpochMilli(dueMs())) : Optional.empty();
    }

    /** A timed message's due time, epoch ms: the score its envelope holds. */
    private long dueMs() {
        return (long) envelope.score();
    }

    @Override
    public OptionalLong priority() {
        return type.isTimed() ? OptionalLong.empty() : OptionalLong.of((long) envelope.score());
    }

    @Override
    public String lastError() {
        return envelope.lastError();
    }

    @Override
    public Map<String, String> headers() {
        return envelope.headers();
    }

    @Override
    public T payload() {
        return payload;
    }

    @Override
    public Instant leaseDeadline() {
        // the token is the deadline in microseconds; like every time rmq shows, the deadline is to the millisecond
        return Instant.ofEpochMilli(token / 1_000);
    }

    @Override
    public void extendLease(Duration duration) {
        checkExtension(duration);
        long renewed = leaseLost() || cancelled ? token : session.extendOne(this, duration);
        refuseIfEnded(renewed, "its lease is not extended");
    }

    @Override
    public boolean reportProgress(int percent, String note, @Nullable Duration extendLease) {
        Progress.check(percent, note);
        if (extendLease != null) {
            checkExtension(extendLease);
        }
        if (!session.leased()) {
            return false;
        }
        long token = leaseLost() || cancelled ? this.token : session.reportProgress(this, percent, note, extendLease);
        refuseIfEnded(token, "no progress is recorded");
        return true;
    }

    /**
     * Throws when what Redis answered for this delivery, {@code token}, says that it was cancelled or its lease
     * lost, with {@code consequence}: what was therefore not done.
     */
    protected final void refuseIfEnded(long token, String consequence) {
        if (cancelled) {
            throw new MessageCancelledException("message '" + key + "' in " + topic + "_" + slot()
                    + " was cancelled while in flight: " + consequence + ", and its ending changes nothing");
        }
        if (token == 0) {
            throw new RmqException("the lease of message '" + key + "' in " + topic + "_" + slot()
                    + " was already lost (" + consequence + "); it may be delivered again", null);
        }
    }

    /** Refuses an extension shorter than a millisecond. */
    protected static void checkExtension(Duration duration) {
        Durations.leaseExtension(duration, "");
    }

    @Override
    public String toString() {
        return "RmqMessage[" + topic + "_" + slot() + ", key=" + key + ", attempt=" + attempt() + "]";
    }
}
