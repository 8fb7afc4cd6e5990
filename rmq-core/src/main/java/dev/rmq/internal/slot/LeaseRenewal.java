package dev.rmq.internal.slot;

import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.ExtendCall;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The lease keeper's call on a session's deliveries: their leases renewed by a whole lease in one call, which also
 * confirms the slot's fencing token. It quotes their tokens in turn with the session's other calls that quote
 * tokens, and records the tokens it answers.
 */
final class LeaseRenewal {

    private LeaseRenewal() {
    }

    /**
     * Renews the leases of {@code deliveries} of {@code session} by a whole lease; with none, confirms the fence.
     * Deliveries that are no longer renewable (ended, or their lease lost) are left out; when none is left, nothing
     * is asked. At most once, the deliveries are a batch's messages not started, and the batch's deadline moves on.
     */
    static <T> Renewal renew(SlotSession<T> session, List<? extends Delivery<?>> deliveries) {
        Duration lease = session.topic().leaseTimeout();
        // the tokens are read under the lock the other calls that quote them take: a handler's own extension that
        // came first has moved its token on, and quoting the one before would lose the lease
        synchronized (session.quoting()) {
            List<ExtendCall.Lease> leases = new ArrayList<>();
            List<Delivery<?>> live = new ArrayList<>();
            if (session.leased()) {
                // a renewal sets a lease to one lease from now: one that ends later already (its handler extended
                // it) is left alone, as shortening it would take back the time the handler asked for
                long renewedEnd = System.nanoTime() + lease.toNanos();
                for (Delivery<?> delivery : deliveries) {
                    if (delivery.renewable() && delivery.leaseEndsBefore(renewedEnd)) {
                        leases.add(new ExtendCall.Lease(delivery.key(), delivery.token()));
                        live.add(delivery);
                    }
                }
                if (live.isEmpty() && !deliveries.isEmpty()) {
                    return Renewal.RENEWED;
                }
            } else {
                // at most once, messages of a batch not started hold the slot by the batch's deadline, moved on here
                live.addAll(deliveries);
            }
            if (session.lost()) {
                return Renewal.FENCED;
            }
            try {
                long before = System.nanoTime();
                List<Long> renewed = session.owner().calls().extend(session.keys, session.fence, lease,
                        !session.leased() && !live.isEmpty(), leases);
                session.verified(before);
                for (int i = 0; i < live.size(); i++) {
                    Delivery<?> delivery = live.get(i);
                    delivery.renewed(session.leased() ? renewed.get(i) : delivery.token(), before, lease);
                }
                return Renewal.RENEWED;
            } catch (SlotFencedException e) {
                session.lostTo("extend", live.size());
                return Renewal.FENCED;
            } catch (RuntimeException e) {
                session.owner().renewalFailed(session, e);
                return Renewal.FAILED;
            }
        }
    }
}
