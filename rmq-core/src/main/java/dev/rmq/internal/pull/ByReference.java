package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.script.AckCall;
import dev.rmq.consumer.Progress;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.Settlement;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.internal.validation.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * A puller's settles and extensions by reference: a delivery it handed out itself is ended through its handle, as
 * the program would end it, and any other through Redis ({@link ElsewhereSettlement}).
 */
final class ByReference<T> {

    private final String pullerId;
    private final Map<String, PullSource<T>> sources;

    ByReference(String pullerId, Map<String, PullSource<T>> sources) {
        this.pullerId = pullerId;
        this.sources = sources;
    }

    AckOutcome settle(DeliveryRef ref, Settlement how, @Nullable String reason) {
        if (how == null) {
            throw new IllegalArgumentException("how a delivery is settled must be one of "
                    + Arrays.toString(Settlement.values()) + ", was null");
        }
        PullSource<T> source = sourceOf(ref);
        String why = how.failure() ? requireReason(how, reason) : "";
        PulledDelivery<T> mine = source.handedOut().held(ref);
        if (mine == null) {
            return source.elsewhere().settle(ref, op(how), why);
        }
        try {
            return switch (how) {
                case ACK -> mine.ack();
                case RETRY -> mine.retry(why);
                case RETRY_NOW -> mine.retryNow(why);
                case DEAD -> mine.dead(why);
                case RELEASE -> mine.release();
            };
        } catch (IllegalStateException e) {
            throw endedMeanwhile(ref, source);
        }
    }

    /** Another thread ended the delivery between the look-up and the call: as if the look-up had not found it. */
    private static LeaseExpiredException endedMeanwhile(DeliveryRef ref, PullSource<?> source) {
        return new LeaseExpiredException(ref.topic(), ref.slot(), ref.key(), 0, "the delivery was already ended",
                source.topic().leaseTimeout());
    }

    DeliveryRef extend(DeliveryRef ref, Duration duration) {
        Durations.leaseExtension(duration, "; to hand the message back, settle it with RELEASE");
        PullSource<T> source = sourceOf(ref);
        PulledDelivery<T> mine = source.handedOut().held(ref);
        if (mine == null) {
            return source.elsewhere().extend(ref, duration);
        }
        try {
            mine.extendLease(duration);
        } catch (IllegalStateException e) {
            throw endedMeanwhile(ref, source);
        }
        return mine.ref();
    }

    DeliveryRef reportProgress(DeliveryRef ref, int percent, String note, @Nullable Duration extendLease) {
        Progress.check(percent, note);
        if (extendLease != null) {
            Durations.leaseExtension(extendLease, "; give null to keep the lease");
        }
        PullSource<T> source = sourceOf(ref);
        PulledDelivery<T> mine = source.handedOut().held(ref);
        if (mine == null) {
            return source.elsewhere().reportProgress(ref, percent, note, extendLease);
        }
        try {
            mine.reportProgress(percent, note, extendLease);
        } catch (IllegalStateException e) {
            throw endedMeanwhile(ref, source);
        }
        return mine.ref();
    }

    private PullSource<T> sourceOf(DeliveryRef ref) {
        if (ref == null) {
            throw new IllegalArgumentException("a delivery reference must not be null");
        }
        PullSource<T> source = sources.get(ref.topic());
        if (source == null) {
            throw new IllegalArgumentException("topic '" + ref.topic() + "' is not one of puller " + pullerId + "'s "
                    + sources.keySet());
        }
        if (source.topic().delivery() == DeliveryGuarantee.AT_MOST_ONCE) {
            throw new IllegalArgumentException("topic '" + ref.topic() + "' is at most once: its messages left Redis"
                    + " when taken, and only the puller that holds one can settle it");
        }
        return source;
    }

    private static String requireReason(Settlement how, @Nullable String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a " + how + " needs a reason, for the dead queue and the next attempt;"
                    + " was " + (reason == null ? "null" : "blank"));
        }
        return reason;
    }

    private static AckCall.Op op(Settlement how) {
        return switch (how) {
            case ACK -> AckCall.Op.COMMIT;
            case RETRY -> AckCall.Op.ROLL_BACK;
            case RETRY_NOW -> AckCall.Op.RETRY_NOW;
            case DEAD -> AckCall.Op.DEAD;
            case RELEASE -> AckCall.Op.HAND_BACK;
        };
    }
}
