package dev.rmq.internal.consumer;

import dev.rmq.events.RmqEvent;
import dev.rmq.internal.redis.SlotFencedException;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Extends leases: the rest of a batch that outlasts half its lease, or one delivery whose handler asks. The worker's
 * thread, its lease timer and a handler may ask at once; the calls take turns, so that each quotes the token the one
 * before it got back.
 */
final class LeaseKeeper {

    /** What an extension of a batch's leases came to. */
    enum Renewal {
        /** Redis renewed them (those whose lease was already lost are marked lost). */
        RENEWED,
        /** The call failed; the leases run as before, and the worker carries on. */
        FAILED,
        /** The worker no longer owns the slot. */
        FENCED
    }

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final String worker;
    private final TopicDefinition topic;
    private final SlotCalls calls;
    private final ConsumerEvents events;

    LeaseKeeper(String worker, TopicDefinition topic, SlotCalls calls, ConsumerEvents events) {
        this.worker = worker;
        this.topic = topic;
        this.calls = calls;
        this.events = events;
    }

    /** Renews the leases of what is left of a batch by a whole lease. */
    synchronized Renewal extendAll(SlotState state, List<? extends Delivery<?>> remaining, WorkerControl control) {
        List<ExtendCall.Lease> leases = new ArrayList<>();
        List<Delivery<?>> live = new ArrayList<>();
        for (Delivery<?> d : remaining) {
            if (!d.leaseLost()) {
                leases.add(new ExtendCall.Lease(d.key(), d.token()));
                live.add(d);
            }
        }
        if (live.isEmpty()) {
            return Renewal.RENEWED;
        }
        try {
            List<Long> renewed = calls.extend(state.keys, state.fence, topic.leaseTimeout(), leases);
            state.verifiedNanos = System.nanoTime();
            for (int i = 0; i < live.size(); i++) {
                live.get(i).token(renewed.get(i));
            }
        } catch (SlotFencedException e) {
            log.warn("worker {} lost {} in the middle of a batch; {} message(s) of it not acknowledged yet go back by"
                    + " lease recovery", worker, state.keys.hashTag(), live.size());
            events.emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic.name(), state.slot, worker, "extend",
                    live.size()));
            return Renewal.FENCED;
        } catch (RuntimeException e) {
            if (control.stopping()) {
                log.debug("worker {} could not extend leases in {} while stopping: {}", worker, state.keys.hashTag(),
                        e.toString());
            } else {
                log.warn("worker {} could not extend leases in {}: {}", worker, state.keys.hashTag(), e.toString());
            }
            return Renewal.FAILED;
        }
        return Renewal.RENEWED;
    }

    /**
     * Asks Redis whether the worker still owns the slot, for a batch that holds no leases to extend: false when it
     * was fenced out. A call that fails says nothing, and the worker carries on.
     */
    boolean confirmFence(SlotState state) {
        try {
            calls.extend(state.keys, state.fence, topic.leaseTimeout(), List.of());
            state.verifiedNanos = System.nanoTime();
            return true;
        } catch (SlotFencedException e) {
            log.warn("worker {} lost {} in the middle of an at-most-once batch; what it has not started goes back",
                    worker, state.keys.hashTag());
            events.emit(() -> new RmqEvent.SlotFenced(Instant.now(), topic.name(), state.slot, worker, "extend", 0));
            return false;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** A handler's own extension of its delivery; returns the new token, or 0 when the lease was lost. */
    synchronized long extendOne(SlotState state, Delivery<?> delivery, Duration duration) {
        long renewed = calls.extend(state.keys, state.fence, duration,
                List.of(new ExtendCall.Lease(delivery.key(), delivery.token()))).get(0);
        delivery.token(renewed);
        return renewed;
    }
}
