package dev.rmq.internal.slot;

import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.ExtendCall;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The calls on one delivery's lease that a handler or the program makes itself: an extension, a progress report.
 * Each quotes the delivery's token, in turn with the session's other calls that quote tokens, and records the token
 * it answers.
 */
final class OneLease {

    private OneLease() {
    }

    /**
     * Extends one delivery's lease; returns the new token, 0 when its lease was already lost or the topic holds no
     * leases, or {@link ExtendCall#CANCELLED} when a cancel removed it.
     *
     * @throws SlotFencedException when the slot is another consumer's now
     */
    static long extend(SlotSession<?> session, Delivery<?> delivery, Duration duration) {
        if (!session.owner().guarantee().leased()) {
            return 0;
        }
        return on(session, delivery, "extend", duration, () -> session.owner().calls().extend(session.keys,
                session.fence, duration, List.of(new ExtendCall.Lease(delivery.key(), delivery.token()))).get(0));
    }

    /**
     * Records a handler's progress for one delivery, and lengthens its lease to {@code lease} from now unless that is
     * null; returns its token after the report, as {@link #extend} does.
     *
     * @throws SlotFencedException when the slot is another consumer's now
     */
    static long progress(SlotSession<?> session, Delivery<?> delivery, int percent, String note,
                         @Nullable Duration lease) {
        // a report that keeps the lease leaves the delivery's deadline as it was
        return on(session, delivery, "progress", lease != null ? lease : Duration.ZERO, () -> session.owner().calls()
                .progress(session.keys, session.fence, delivery.key(), delivery.token(), lease, percent, note));
    }

    /**
     * Runs {@code call}, which quotes one delivery's token and answers its token after the call, and records what it
     * answered; {@code lease} is how long the call lengthened the lease by, zero when it did not.
     */
    private static long on(SlotSession<?> session, Delivery<?> delivery, String during, Duration lease,
                           LongSupplier call) {
        synchronized (session.quoting()) {
            long before = System.nanoTime();
            long token;
            try {
                token = call.getAsLong();
            } catch (SlotFencedException e) {
                session.lostTo(during, 1);
                throw e;
            }
            session.verified(before);
            delivery.renewed(token, before, lease);
            return token;
        }
    }
}
