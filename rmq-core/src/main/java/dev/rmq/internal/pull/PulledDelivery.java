package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.Progress;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.slot.Delivery;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.PulledMessage;
import dev.rmq.internal.validation.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/** A delivery a puller handed out, ended by the program through its topic's {@link PullSettlement}. */
final class PulledDelivery<T> extends Delivery<T> implements PulledMessage<T> {

    private final PullSettlement<T> settlement;
    private final AtomicBoolean settled = new AtomicBoolean();

    PulledDelivery(PullSettlement<T> settlement, SlotSession<T> session, String key, Envelope envelope, byte[] raw,
                   T payload, long token, long leaseEndsNanos) {
        super(session, key, envelope, raw, payload, token, leaseEndsNanos);
        this.settlement = settlement;
    }

    PullSettlement<T> settlement() {
        return settlement;
    }

    /** Marks the delivery ended; false when it already was. */
    boolean claim() {
        return settled.compareAndSet(false, true);
    }

    /** Undoes a {@link #claim} whose ending was not sent: it may be ended again. */
    void unclaim() {
        settled.set(false);
    }

    @Override
    public boolean isSettled() {
        return settled.get();
    }

    @Override
    public AckOutcome ack() {
        return settlement.settle(this, AckCall.Op.COMMIT, "");
    }

    @Override
    public AckOutcome retry(String reason) {
        return settlement.settle(this, AckCall.Op.ROLL_BACK, reason(reason));
    }

    @Override
    public AckOutcome retryNow(String reason) {
        return settlement.settle(this, AckCall.Op.RETRY_NOW, reason(reason));
    }

    @Override
    public AckOutcome dead(String reason) {
        return settlement.settle(this, AckCall.Op.DEAD, reason(reason));
    }

    @Override
    public AckOutcome release() {
        return settlement.settle(this, AckCall.Op.HAND_BACK, "");
    }

    @Override
    public void extend(Duration duration) {
        if (duration != null && duration.isZero()) {
            release();
            return;
        }
        Durations.leaseExtension(duration, "; Duration.ZERO hands the message back");
        extendLease(duration);
    }

    @Override
    public void extendLease(Duration duration) {
        checkExtension(duration);
        settlement.extend(this, duration);
    }

    @Override
    public boolean reportProgress(int percent, String note, @Nullable Duration extendLease) {
        Progress.check(percent, note);
        if (extendLease != null) {
            checkExtension(extendLease);
        }
        if (!session().leased()) {
            return false;
        }
        settlement.reportProgress(this, percent, note, extendLease);
        return true;
    }

    @Override
    public DeliveryRef ref() {
        if (!session().leased()) {
            throw new IllegalStateException("message '" + key() + "' of at-most-once topic " + settlement.topic().name()
                    + " holds no lease, and so has no reference: it is settled by this handle only");
        }
        return new DeliveryRef(settlement.topic().name(), slot(), key(), token());
    }

    private static String reason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a failure needs a reason, for the dead queue and the next attempt;"
                    + " was " + (reason == null ? "null" : "blank"));
        }
        return reason;
    }
}
