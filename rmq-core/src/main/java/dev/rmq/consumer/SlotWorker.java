package dev.rmq.consumer;

import dev.rmq.codec.PayloadCodecException;
import dev.rmq.redis.Envelope;
import dev.rmq.redis.MalformedEnvelopeException;
import dev.rmq.redis.SlotFencedException;
import dev.rmq.redis.SlotKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One consumer thread. It polls each of its slots when due (or when woken), handles the batch it gets
 * one message after another, and acknowledges the batch in one call. Slots of one worker are served in
 * turn, so a busy slot cannot starve the others.
 */
final class SlotWorker<T> implements SlotOwner, Runnable {

    private static final Logger log = LoggerFactory.getLogger(SlotWorker.class);
    private static final long MAX_ERROR_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * A fenced worker re-checks its token before a handler when this long has passed since Redis last
     * confirmed it, so a worker resuming from a long pause cannot start a message after losing its slot.
     */
    private static final long FENCE_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String id;
    private final ConsumerRuntime<T> runtime;
    private final ConcurrentMap<Integer, SlotState> slots = new ConcurrentHashMap<>();
    private final Semaphore signal = new Semaphore(0);
    private volatile boolean running = true;
    private volatile boolean exited;
    private volatile long stopDeadlineNanos = Long.MAX_VALUE;

    private static final class SlotState {
        final int slot;
        final SlotKeys keys;
        final String fence;
        /** No poll before this, whatever wakes the slot: the hold-off of a takeover. */
        final long holdUntilNanos;
        volatile long nextPollNanos;
        /** A wake-up arrived while a poll was on its way: its planned wait must not overwrite it. */
        volatile boolean woken;
        volatile CompletableFuture<Void> revoked;
        int failures;
        long verifiedNanos;

        SlotState(int slot, SlotKeys keys, String fence, long holdUntilNanos) {
            this.slot = slot;
            this.keys = keys;
            this.fence = fence;
            this.holdUntilNanos = holdUntilNanos;
            this.nextPollNanos = holdUntilNanos;
        }
    }

    SlotWorker(String id, ConsumerRuntime<T> runtime) {
        this.id = id;
        this.runtime = runtime;
    }

    @Override
    public String workerId() {
        return id;
    }

    @Override
    public void assign(int slot, String fencingToken, Duration holdOff) {
        if (!running) {
            return;
        }
        SlotState state = new SlotState(slot, runtime.keys(slot), fencingToken == null ? "" : fencingToken,
                System.nanoTime() + holdOff.toNanos());
        slots.put(slot, state);
        signal.release();
    }

    @Override
    public CompletionStage<Void> revoke(int slot) {
        SlotState state = slots.get(slot);
        if (state == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (exited) {
            release(state);
            return state.revoked;
        }
        synchronized (state) {
            if (state.revoked == null) {
                state.revoked = new CompletableFuture<>();
            }
        }
        signal.release();
        return state.revoked;
    }

    @Override
    public Set<Integer> ownedSlots() {
        Set<Integer> owned = new TreeSet<>();
        slots.forEach((slot, state) -> {
            if (state.revoked == null) {
                owned.add(slot);
            }
        });
        return owned;
    }

    /** Every slot this worker still has in hand, including those it is letting go after an in-flight message. */
    Set<Integer> heldSlots() {
        return new TreeSet<>(slots.keySet());
    }

    /** A send made a message due earlier than this slot's planned poll. */
    void wake(int slot) {
        SlotState state = slots.get(slot);
        if (state != null) {
            // at once, unless the slot is still held off after a takeover
            state.woken = true;
            state.nextPollNanos = state.holdUntilNanos;
            signal.release();
        }
    }

    /** Asks the worker to stop popping; what it holds may finish until {@code deadlineNanos}. */
    void stop(long deadlineNanos) {
        stopDeadlineNanos = deadlineNanos;
        running = false;
        signal.release();
    }

    @Override
    public void run() {
        try {
            while (running) {
                long nextWake = System.nanoTime() + runtime.settings().idlePoll().toNanos();
                for (SlotState state : slots.values()) {
                    if (!running) {
                        break;
                    }
                    if (state.revoked != null) {
                        release(state);
                        continue;
                    }
                    if (state.nextPollNanos - System.nanoTime() <= 0) {
                        poll(state);
                    }
                    if (state.nextPollNanos - nextWake < 0) {
                        nextWake = state.nextPollNanos;
                    }
                }
                long waitNanos = nextWake - System.nanoTime();
                if (waitNanos > 0 && running) {
                    signal.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
                }
                signal.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exited = true;
            slots.values().forEach(this::release);
        }
    }

    private void release(SlotState state) {
        slots.remove(state.slot, state);
        synchronized (state) {
            if (state.revoked == null) {
                state.revoked = new CompletableFuture<>();
            }
        }
        state.revoked.complete(null);
    }

    private void poll(SlotState state) {
        SlotCalls.Polled polled;
        state.woken = false;
        try {
            polled = runtime.calls().poll(state.keys, state.fence);
            state.failures = 0;
            state.verifiedNanos = System.nanoTime();
        } catch (SlotFencedException e) {
            log.warn("worker {} no longer owns {}: {}", id, state.keys.hashTag(), e.getMessage());
            release(state);
            return;
        } catch (RuntimeException e) {
            backOff(state, "poll", e);
            return;
        }
        runtime.metrics().recovered(runtime.topic(), polled.recovered());
        long now = System.nanoTime();
        // a send that woke the slot during the call may have come after the script had planned its wait
        boolean pollAgain = polled.waitMs() == 0 || state.woken;
        state.nextPollNanos = pollAgain ? now : now + TimeUnit.MILLISECONDS.toNanos(polled.waitMs());
        if (!polled.keys().isEmpty()) {
            handleBatch(state, polled);
        }
    }

    private void backOff(SlotState state, String what, RuntimeException e) {
        state.failures++;
        long delay = Math.min(MAX_ERROR_BACKOFF_NANOS, TimeUnit.MILLISECONDS.toNanos(100L << Math.min(state.failures, 6)));
        state.nextPollNanos = System.nanoTime() + delay;
        if (state.failures == 1 || state.failures % 20 == 0) {
            log.warn("worker {} failed to {} {} ({} time(s) in a row), retrying in {} ms: {}", id, what,
                    state.keys.hashTag(), state.failures, TimeUnit.NANOSECONDS.toMillis(delay), e.toString());
        }
    }

    private void handleBatch(SlotState state, SlotCalls.Polled polled) {
        List<SlotCalls.Ack> acks = new ArrayList<>();
        List<Delivery<T>> deliveries = new ArrayList<>();
        for (int i = 0; i < polled.keys().size(); i++) {
            String key = polled.keys().get(i);
            try {
                deliveries.add(decode(state, key, polled.envelopes().get(i), polled.token()));
            } catch (MalformedEnvelopeException | PayloadCodecException e) {
                acks.add(new SlotCalls.Ack('D', key, polled.token(), "cannot decode: " + e.getMessage()));
            }
        }
        long leaseNanos = runtime.topic().leaseTimeout().toNanos();
        long leaseStart = System.nanoTime();
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery<T> delivery = deliveries.get(i);
            long now = System.nanoTime();
            if (mustLetGo(state, now)) {
                unackRest(deliveries.subList(i, deliveries.size()), acks);
                break;
            }
            boolean leaseHalfGone = now - leaseStart > leaseNanos / 2;
            if (leaseHalfGone || fenceUnconfirmed(state, now)) {
                if (!flush(state, acks)) {
                    return;
                }
                // the ack just sent checked the fence; only the leases, or a fence it did not check, need a call
                if (leaseHalfGone || fenceUnconfirmed(state, System.nanoTime())) {
                    if (!extendAll(state, deliveries.subList(i, deliveries.size()))) {
                        return;
                    }
                    leaseStart = System.nanoTime();
                }
                // a revoke that came during those calls must stop the batch before the next handler starts
                if (mustLetGo(state, System.nanoTime())) {
                    unackRest(deliveries.subList(i, deliveries.size()), acks);
                    break;
                }
            }
            if (delivery.leaseLost()) {
                continue;
            }
            reportLateness(delivery, polled);
            ConsumeResult result = invoke(delivery);
            acks.add(new SlotCalls.Ack(opFor(result), delivery.key(), delivery.token(), result.reason()));
        }
        flush(state, acks);
    }

    /** Hands back what a batch has not started, so the next owner gets it without waiting for a lease. */
    private static <T> void unackRest(List<Delivery<T>> rest, List<SlotCalls.Ack> acks) {
        for (Delivery<T> delivery : rest) {
            if (!delivery.leaseLost()) {
                acks.add(new SlotCalls.Ack('U', delivery.key(), delivery.token(), ""));
            }
        }
    }

    private static boolean fenceUnconfirmed(SlotState state, long now) {
        return !state.fence.isEmpty() && now - state.verifiedNanos > FENCE_RECHECK_NANOS;
    }

    private boolean mustLetGo(SlotState state, long now) {
        return state.revoked != null || (!running && now - stopDeadlineNanos > 0) || Thread.currentThread().isInterrupted();
    }

    private Delivery<T> decode(SlotState state, String key, byte[] raw, long token) {
        Envelope envelope = Envelope.decode(raw);
        T payload = runtime.decodePayload(envelope.payload());
        return new Delivery<>(runtime.topic().name(), runtime.topic().type(), state.slot, key, envelope, payload, token,
                (delivery, duration) -> extendOne(state, delivery, duration));
    }

    private void reportLateness(Delivery<T> delivery, SlotCalls.Polled polled) {
        delivery.dueTime().ifPresent(due -> {
            long redisNowMs = polled.redisNowMs() + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - polled.receivedNanos());
            runtime.metrics().lateness(runtime.topic(), redisNowMs - due.toEpochMilli());
        });
    }

    private ConsumeResult invoke(Delivery<T> delivery) {
        long start = System.nanoTime();
        ConsumeResult result;
        try {
            result = runtime.handler().handle(delivery);
            result = result == null ? ConsumeResult.success() : result;
        } catch (Exception e) {
            result = ConsumeResult.retry(describe(e));
        } catch (LinkageError | AssertionError | StackOverflowError e) {
            result = ConsumeResult.retry(describe(e));
        }
        runtime.metrics().consumed(runtime.topic(), result.outcome(), System.nanoTime() - start);
        return result;
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getClass().getName() + ": " + e.getMessage();
    }

    private static char opFor(ConsumeResult result) {
        return switch (result.outcome()) {
            case SUCCESS -> 'C';
            case RETRY -> 'R';
            case DEAD -> 'D';
        };
    }

    /** Sends the acks gathered so far; false when the worker turned out to have lost the slot. */
    private boolean flush(SlotState state, List<SlotCalls.Ack> acks) {
        if (acks.isEmpty()) {
            return true;
        }
        try {
            List<String> results = runtime.calls().ack(state.keys, state.fence, acks);
            state.verifiedNanos = System.nanoTime();
            for (int i = 0; i < results.size(); i++) {
                runtime.metrics().acknowledged(runtime.topic(), results.get(i));
                if ("stale".equals(results.get(i))) {
                    log.info("worker {}: the lease of '{}' in {} ran out before its ack; it is redelivered",
                            id, acks.get(i).key(), state.keys.hashTag());
                }
            }
        } catch (SlotFencedException e) {
            log.warn("worker {} lost {} before acknowledging {} message(s); they will be redelivered", id,
                    state.keys.hashTag(), acks.size());
            release(state);
            acks.clear();
            return false;
        } catch (RuntimeException e) {
            log.warn("worker {} could not acknowledge {} message(s) of {}; their leases will recover them: {}", id,
                    acks.size(), state.keys.hashTag(), e.toString());
        }
        acks.clear();
        return true;
    }

    /** Renews the leases of what is left of a batch; false when the worker no longer owns the slot. */
    private boolean extendAll(SlotState state, List<Delivery<T>> remaining) {
        List<String> keys = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        List<Delivery<T>> live = new ArrayList<>();
        for (Delivery<T> d : remaining) {
            if (!d.leaseLost()) {
                keys.add(d.key());
                tokens.add(d.token());
                live.add(d);
            }
        }
        if (live.isEmpty()) {
            return true;
        }
        try {
            List<Long> renewed = runtime.calls().extend(state.keys, state.fence, runtime.topic().leaseTimeout(), keys, tokens);
            state.verifiedNanos = System.nanoTime();
            for (int i = 0; i < live.size(); i++) {
                live.get(i).token(renewed.get(i));
            }
        } catch (SlotFencedException e) {
            log.warn("worker {} lost {} in the middle of a batch; {} unstarted message(s) go back by lease recovery",
                    id, state.keys.hashTag(), live.size());
            release(state);
            return false;
        } catch (RuntimeException e) {
            log.warn("worker {} could not extend leases in {}: {}", id, state.keys.hashTag(), e.toString());
        }
        return true;
    }

    private long extendOne(SlotState state, Delivery<?> delivery, Duration duration) {
        long renewed = runtime.calls().extend(state.keys, state.fence, duration, List.of(delivery.key()),
                List.of(delivery.token())).get(0);
        delivery.token(renewed);
        return renewed;
    }
}
