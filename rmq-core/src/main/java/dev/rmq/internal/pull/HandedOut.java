package dev.rmq.internal.pull;

import dev.rmq.internal.slot.Delivery;
import dev.rmq.internal.slot.Sessions;
import dev.rmq.internal.slot.SlotSession;
import dev.rmq.pull.DeliveryRef;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The deliveries one source of a puller handed out, as the world outside its polls reaches them: found by the
 * reference a settle or an extension quotes, ended or extended by another puller (told on the wake-up channel), or
 * lost with Redis and restored.
 */
final class HandedOut<T> {

    private static final Logger log = LoggerFactory.getLogger(HandedOut.class);

    /** The puller's id, for the logs. */
    private final String id;
    private final Sessions<T> slots;

    HandedOut(String id, Sessions<T> slots) {
        this.id = id;
        this.slots = slots;
    }

    /** The delivery the reference names, if this source handed it out and it is not ended; null otherwise. */
    @Nullable PulledDelivery<T> held(DeliveryRef ref) {
        SlotSession<T> session = slots.get(ref.slot());
        return session == null ? null : find(session, ref.key(), ref.lease());
    }

    private static <T> @Nullable PulledDelivery<T> find(SlotSession<T> session, String key, long lease) {
        for (Delivery<T> delivery : session.outstanding()) {
            if (delivery.token() == lease && delivery.key().equals(key) && delivery instanceof PulledDelivery<T> mine
                    && !mine.isSettled()) {
                return mine;
            }
        }
        return null;
    }

    /**
     * Another puller ended or extended, by its reference, a delivery this one handed out: an ending frees the slot
     * at once (the handle then refuses to end it again), an extension moves the lease this puller counts on.
     */
    void noticed(String text) {
        SettledElsewhere notice = SettledElsewhere.parse(text);
        if (notice == null) {
            return;
        }
        SlotSession<T> session = slots.get(notice.slot());
        PulledDelivery<T> held = session == null ? null : find(session, notice.key(), notice.lease());
        if (session == null || held == null) {
            return;
        }
        if (!notice.isEnding()) {
            held.renewed(notice.newLease(), System.nanoTime(), Duration.ofMillis(notice.leaseMs()));
        } else if (held.claim()) {
            log.debug("puller {}: message '{}' of {} was ended by its reference elsewhere; its slot is free", id,
                    notice.key(), session.keys.hashTag());
            session.forget(List.of(held));
        }
    }

    /** Forgets the deliveries of {@code keys} out of the slot, which Redis lost: see {@link Puller#forgetLost}. */
    void forgetLost(int slot, Set<String> keys) {
        SlotSession<T> session = slots.get(slot);
        if (session == null) {
            return;
        }
        List<Delivery<T>> gone = new ArrayList<>();
        for (Delivery<T> delivery : session.outstanding()) {
            if (keys.contains(delivery.key())) {
                gone.add(delivery);
            }
        }
        if (!gone.isEmpty()) {
            log.info("puller {}: {} message(s) it handed out of {} were lost with Redis and restored; their slot is"
                    + " polled again, and ending them is refused as a lease that ran out", id, gone.size(),
                    session.keys.hashTag());
            session.forget(gone);
        }
    }
}
