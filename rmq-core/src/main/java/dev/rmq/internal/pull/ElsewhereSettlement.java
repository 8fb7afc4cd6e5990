package dev.rmq.internal.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.internal.slot.SlotCalls;
import dev.rmq.internal.slot.WakeSubscription;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.topic.TopicDefinition;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;

/**
 * Ends and extends, by their references, deliveries of one topic that another puller handed out. The call is not
 * fenced, since this puller does not own the slot; the lease deadline the reference quotes is what Redis checks,
 * so only the delivery it names is ended, once. The puller that holds it is then told, on the wake-up channel
 * ({@link SettledElsewhere}).
 */
final class ElsewhereSettlement {

    private final TopicDefinition topic;
    private final KeyLayout keys;
    private final SlotCalls calls;
    private final WakeSubscription wakes;

    ElsewhereSettlement(TopicDefinition topic, KeyLayout keys, SlotCalls calls, WakeSubscription wakes) {
        this.topic = topic;
        this.keys = keys;
        this.calls = calls;
        this.wakes = wakes;
    }

    AckOutcome settle(DeliveryRef ref, AckCall.Op op, String reason) {
        AckOutcome outcome = calls.ack(slotKeys(ref), "", List.of(new AckCall.Ack(op, ref.key(), ref.lease(), reason)))
                .get(0);
        if (outcome == AckOutcome.STALE) {
            throw gone(ref);
        }
        wakes.publish(SettledElsewhere.ended(ref.slot(), ref.key(), ref.lease()).encode());
        return outcome;
    }

    DeliveryRef extend(DeliveryRef ref, Duration duration) {
        long renewed = calls.extend(slotKeys(ref), "", duration, List.of(new ExtendCall.Lease(ref.key(), ref.lease())))
                .get(0);
        return extended(ref, renewed, duration, "its lease is not extended");
    }

    DeliveryRef reportProgress(DeliveryRef ref, int percent, String note, @Nullable Duration lease) {
        long token = calls.progress(slotKeys(ref), "", ref.key(), ref.lease(), lease, percent, note);
        return extended(ref, token, lease, "no progress is recorded");
    }

    /**
     * The reference after a call that answered {@code token} for it, which lengthened its lease to {@code lease}
     * (null when it did not): the holder is told of a new lease, and a cancel or a lost lease throws with the call's
     * {@code consequence}.
     */
    private DeliveryRef extended(DeliveryRef ref, long token, @Nullable Duration lease, String consequence) {
        if (token == ExtendCall.CANCELLED) {
            throw new MessageCancelledException("message '" + ref.key() + "' of topic " + topic.name()
                    + " was cancelled while in flight: " + consequence + ", and its ending changes nothing");
        }
        if (token == 0) {
            throw gone(ref);
        }
        if (lease != null) {
            wakes.publish(SettledElsewhere.extended(ref.slot(), ref.key(), ref.lease(), token, lease).encode());
        }
        return new DeliveryRef(ref.topic(), ref.slot(), ref.key(), token);
    }

    private SlotKeys slotKeys(DeliveryRef ref) {
        return keys.slot(topic.name(), topic.requireSlot(ref.slot()));
    }

    private LeaseExpiredException gone(DeliveryRef ref) {
        return new LeaseExpiredException(topic.name(), ref.slot(), ref.key(), 0, "no delivery holds the lease this"
                + " reference quotes: it ran out (the message will be delivered again), or the delivery was already"
                + " ended", topic.leaseTimeout());
    }
}
