package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.LeaseKeeper;
import dev.rmq.internal.slot.SlotSession;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.BiPredicate;

/**
 * The sessions of one worker whose last batch's endings wait to go with their next poll, each until a deadline.
 * A poll that comes by then carries them, sparing a script call of their own; past it they go alone. At light
 * load a slot's next message falls due a few milliseconds after its last one, so most endings find a poll to
 * go with. The worker sends what is due between its polls and between the handlers of a batch; while a handler
 * of another slot runs long, held endings wait for it, and the {@link LeaseKeeper} renews their leases
 * meanwhile, so that none runs out. Touched by the worker's own thread only.
 */
final class HeldEndings<T> {

    /** The longest endings wait for a poll of their slot. */
    static final long MAX_HOLD_NANOS = 20_000_000L;

    /** Held endings: when they go alone at the latest, and the watch that renews their leases until then. */
    private record Held(long deadlineNanos, LeaseKeeper.Watch leases) {
    }

    /** Each session with held endings. */
    private final Map<SlotSession<T>, Held> held = new LinkedHashMap<>();
    private final LeaseKeeper leases;
    /** Sends a session's endings alone; what it does when the slot turns out to be lost is the worker's. */
    private final Consumer<SlotSession<T>> sendAlone;

    HeldEndings(LeaseKeeper leases, Consumer<SlotSession<T>> sendAlone) {
        this.leases = leases;
        this.sendAlone = sendAlone;
    }

    /**
     * How long the endings of {@code session} may wait for its next poll: a tenth of its lease, at most
     * {@link #MAX_HOLD_NANOS}.
     */
    static long holdNanos(SlotSession<?> session) {
        return Math.min(MAX_HOLD_NANOS, session.topic().leaseTimeout().toNanos() / 10);
    }

    /**
     * Holds the endings of {@code session} until its next poll, or {@code deadlineNanos} at the latest; their leases
     * are renewed from half a lease on, which the caller makes sure none of them ends before.
     */
    void hold(SlotSession<T> session, long deadlineNanos) {
        Held before = held.put(session, new Held(deadlineNanos,
                leases.keep(session, System.nanoTime(), () -> null, List::of)));
        if (before != null) {
            before.leases().close();
        }
    }

    /** The session is being polled: its endings go with the poll. */
    void carried(SlotSession<T> session) {
        Held was = held.remove(session);
        if (was != null) {
            was.leases().close();
        }
    }

    /** The earliest deadline of the held endings, or {@code orElse} when none are held. */
    long earliestDeadline(long orElse) {
        long earliest = orElse;
        for (Held h : held.values()) {
            if (h.deadlineNanos() - earliest < 0) {
                earliest = h.deadlineNanos();
            }
        }
        return earliest;
    }

    /** Sends alone the endings whose deadline has come by {@code nowNanos}, but those of {@code except}. */
    void sendDue(long nowNanos, @Nullable SlotSession<T> except) {
        send((s, h) -> s != except && h.deadlineNanos() - nowNanos <= 0);
    }

    /** Sends alone the endings of {@code session}, if any are held. */
    void send(SlotSession<T> session) {
        send((s, h) -> s == session);
    }

    /** Sends alone every held ending. */
    void sendAll() {
        send((s, h) -> true);
    }

    private void send(BiPredicate<SlotSession<T>, Held> which) {
        if (held.isEmpty()) {
            return;
        }
        List<SlotSession<T>> due = new ArrayList<>();
        for (Iterator<Map.Entry<SlotSession<T>, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SlotSession<T>, Held> entry = it.next();
            if (which.test(entry.getKey(), entry.getValue())) {
                entry.getValue().leases().close();
                due.add(entry.getKey());
                it.remove();
            }
        }
        due.forEach(sendAlone);
    }
}
