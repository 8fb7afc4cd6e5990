package dev.rmq.internal.slot;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The deliveries a slot session handed out that hold leases and have not ended. A puller does not poll a slot again
 * while one of them runs under its lease, so that one slot basis is handled one batch after another, as a
 * container's worker does; the lease keeper renews a container's. Safe from any thread.
 */
final class Outstanding<T> {

    private final Set<Delivery<T>> out = ConcurrentHashMap.newKeySet();

    void addAll(Collection<Delivery<T>> deliveries) {
        out.addAll(deliveries);
    }

    void remove(Delivery<?> delivery) {
        out.remove(delivery);
    }

    /**
     * Forgets the deliveries whose lease ran out by {@code nowNanos}: a puller's program may drop a message and never
     * end it (an HTTP client that went away), and one kept here for good would be walked on every poll. Redis
     * recovers its lease and delivers it again; an ending of the dropped one is refused as stale.
     */
    void forgetLeaseOver(long nowNanos) {
        out.removeIf(delivery -> delivery.leaseOver(nowNanos));
    }

    /** Whether any of them was out. */
    boolean removeAll(Collection<? extends Delivery<?>> deliveries) {
        return out.removeAll(deliveries);
    }

    /** Forgets every delivery but those {@code endings} end, which wait to be sent. */
    void retainEndedBy(List<Ending> endings) {
        if (endings.isEmpty()) {
            out.clear();
            return;
        }
        // sized for them at once: grown from its default size, it resized several times for a batch of a thousand
        Set<Delivery<?>> pending = Collections.newSetFromMap(new IdentityHashMap<>(endings.size()));
        for (Ending ending : endings) {
            Delivery<?> delivery = ending.delivery();
            if (delivery != null) {
                pending.add(delivery);
            }
        }
        out.removeIf(delivery -> !pending.contains(delivery));
    }

    Collection<Delivery<T>> view() {
        return Collections.unmodifiableSet(out);
    }

    /** When the last lease of the deliveries still out ends, or 0 when none runs any more. */
    long leasesEndNanos(long nowNanos) {
        long latest = 0;
        boolean any = false;
        for (Delivery<T> delivery : out) {
            long ends = delivery.leaseEndsNanos();
            if (ends - nowNanos > 0 && (!any || ends - latest > 0)) {
                latest = ends;
                any = true;
            }
        }
        return any ? latest : 0;
    }
}
