package dev.rmq.internal.producer;

import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.RedisFailures;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.SendCall;
import dev.rmq.producer.SendBufferFullException;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Single sends, with at most one dispatch of them in flight per lane: a lane per topic where a topic's slots may
 * share calls (not a Cluster) and its sends need no backlog cap and no FIFO place, else a lane per slot. A send that
 * finds its lane idle goes out at once, alone; sends that come while a dispatch is out wait for it and then go
 * together, in the calls {@link SendPlan} makes of them: one of up to {@value ScriptProducer#MESSAGES_PER_CALL}
 * messages where slots share calls. There is no linger: a lone send is never held back, and concurrent senders share
 * a call's fixed cost in Redis instead of each paying it.
 *
 * <p>A slot's single sends run in Redis in the order they were made, even over a pool of connections: a sender
 * that calls {@code sendAsync} twice finds its second message after its first, merged into it when the key is the
 * same. A call that fails fails each of its messages with the call's error, as a call of one would; when it failed
 * for want of Redis, the sends waiting behind it fail at once, unsent, rather than each waiting out a timeout of its
 * own in turn.
 *
 * <p>One dispatch in flight per lane is what pays most where senders crowd a lane: with 100 callers on one slot, a
 * fiftieth of the calls and over three times the rate; a lane per topic makes 16 slots share calls as one does. Its
 * cost is where a few callers spread out: a send that meets another in its lane waits out that call's round trip,
 * for little sharing (docs/benchmarks.md has the figures).
 *
 * <p>What waits is bounded by the send buffer, over all lanes: while Redis answers more slowly than the application
 * sends asynchronously, or not at all (a call waits out its timeout and retries before it fails), waiting sends would
 * otherwise pile up in memory. A send that would take the waiting bytes past the buffer is refused at once, unless
 * nothing waits in its lane yet, so that a message of any allowed size can go. A send the application already held
 * in memory (one a transaction's commit released, see {@link #unrefused}) is never refused: refusing it would lose a
 * committed message, and waiting here takes no more memory than being held did.
 */
final class SendCoalescer {

    /**
     * Makes the script calls that send the messages, each slot's in the order given; completes with an outcome for
     * each, in order, once every call has come back. A call that fails fails only its own messages.
     */
    interface Calls {
        CompletableFuture<List<Outcome>> send(List<SendPlan.Item> items);
    }

    /** What became of one message: the script's result, or the failure of its call. */
    record Outcome(SendCall.@Nullable Result result, @Nullable Throwable error) {
    }

    /** Set on a thread while it makes sends that the buffer must not refuse; see {@link #unrefused}. */
    private static final ThreadLocal<Boolean> UNREFUSED = new ThreadLocal<>();

    private final Calls calls;
    private final boolean topicLanes;
    /** The most bytes of envelopes that may wait, over all lanes; see {@link #waitingBytes}. */
    private final long bufferBytes;
    /** The bytes of the envelopes that wait for their lane's call in flight, over all lanes. */
    private final AtomicLong waitingBytes = new AtomicLong();
    private final Map<Object, Lane> lanes = new ConcurrentHashMap<>();
    private final Function<Object, Lane> newLane = Lane::new;

    /**
     * @param topicLanes whether a topic's slots may share calls (not a Cluster): then a topic whose sends need no
     *                   backlog cap and no FIFO place has one lane for all its slots, whatever the calls turn out to
     *                   carry, so that a slot's order never depends on which lane a send took
     * @param bufferBytes the most bytes of messages that may wait for their lane's call in flight, over all lanes
     */
    SendCoalescer(Calls calls, boolean topicLanes, long bufferBytes) {
        this.calls = calls;
        this.topicLanes = topicLanes;
        this.bufferBytes = bufferBytes;
    }

    /**
     * Runs {@code sends} so that the single sends it makes on this thread wait in their lanes whatever the buffer
     * holds: for sends the application held in memory already, which a refusal would lose.
     */
    static <T> T unrefused(Supplier<T> sends) {
        Boolean before = UNREFUSED.get();
        UNREFUSED.set(Boolean.TRUE);
        try {
            return sends.get();
        } finally {
            if (before == null) {
                UNREFUSED.remove();
            }
        }
    }

    /** Sends one message to its slot, now or with its lane's next call; completes with what the script did with it. */
    CompletableFuture<SendCall.Result> send(SendPlan.Item item) {
        TopicDefinition topic = item.topic();
        Object lane = topicLanes && topic.maxBacklogPerSlot() == 0 && !topic.fifo() ? topic.name() : item.slot();
        return lanes.computeIfAbsent(lane, newLane).send(new Pending(item, new CompletableFuture<>(), false));
    }

    /** A send; {@code counted} once it waited, so that its bytes are in the buffer until its call comes back. */
    private record Pending(SendPlan.Item item, CompletableFuture<SendCall.Result> result, boolean counted) {

        int bytes() {
            return item.message().envelope().length;
        }
    }

    /** The sends of {@code pending} that waited leave the buffer: their call came back, or they go unsent. */
    private void left(List<Pending> pending) {
        long bytes = 0;
        for (Pending p : pending) {
            if (p.counted()) {
                bytes += p.bytes();
            }
        }
        if (bytes > 0) {
            waitingBytes.addAndGet(-bytes);
        }
    }

    /** One lane's sends: whether a call is out, and the sends that wait for it to come back. */
    private final class Lane {

        /** How errors name the lane: a topic, or a slot of one. */
        private final String name;
        private List<Pending> waiting = new ArrayList<>();
        private boolean busy;

        Lane(Object lane) {
            this.name = lane instanceof SlotKeys slot ? "slot " + slot.slot() + " of topic '" + slot.topic() + "'"
                    : "topic '" + lane + "'";
        }

        CompletableFuture<SendCall.Result> send(Pending pending) {
            synchronized (this) {
                if (busy) {
                    int bytes = pending.bytes();
                    boolean refusable = !waiting.isEmpty() && UNREFUSED.get() == null;
                    // added only when admitted: a refusal's bytes never show to another lane's check
                    long before;
                    do {
                        before = waitingBytes.get();
                        if (refusable && before + bytes > bufferBytes) {
                            SendPlan.Item item = pending.item();
                            pending.result().completeExceptionally(new SendBufferFullException(item.topic().name(),
                                    item.message().key(), before, bufferBytes));
                            return pending.result();
                        }
                    } while (!waitingBytes.compareAndSet(before, before + bytes));
                    waiting.add(new Pending(pending.item(), pending.result(), true));
                    return pending.result();
                }
                busy = true;
            }
            dispatch(List.of(pending));
            return pending.result();
        }

        /**
         * Sends the batch, and each batch after it while calls come back at once: a loop, not a recursion, so that a
         * client that fails every call on the spot (shut down) cannot stack one frame per batch.
         */
        private void dispatch(List<Pending> first) {
            List<Pending> batch = first;
            while (batch != null) {
                CompletableFuture<List<Outcome>> call = call(batch);
                if (!call.isDone()) {
                    List<Pending> sent = batch;
                    call.whenComplete((outcomes, error) -> {
                        left(sent);
                        Throwable failure = failure(sent, outcomes, error);
                        // the next call goes out before this one's senders run their continuations, which could
                        // otherwise hold it up
                        List<Pending> next = advance(failure);
                        try {
                            if (next != null) {
                                dispatch(next);
                            }
                        } finally {
                            complete(sent, outcomes, error, failure);
                        }
                    });
                    return;
                }
                List<Outcome> outcomes = call.exceptionally(error -> null).join();
                Throwable error = call.handle((value, e) -> e).join();
                Throwable failure = failure(batch, outcomes, error);
                left(batch);
                List<Pending> next = advance(failure);
                complete(batch, outcomes, error, failure);
                batch = next;
            }
        }

        private CompletableFuture<List<Outcome>> call(List<Pending> batch) {
            List<SendPlan.Item> items = new ArrayList<>(batch.size());
            for (Pending pending : batch) {
                items.add(pending.item());
            }
            try {
                return calls.send(items);
            } catch (Throwable e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /**
         * What failed of the calls: their error, a message's own, or one when the outcomes do not match the
         * messages; null when all went well.
         */
        private @Nullable Throwable failure(List<Pending> batch, @Nullable List<Outcome> outcomes,
                                            @Nullable Throwable error) {
            if (error != null) {
                return error;
            }
            if (outcomes == null || outcomes.size() != batch.size()) {
                return new IllegalStateException("the send calls answered " + (outcomes == null ? 0 : outcomes.size())
                        + " outcome(s) for " + batch.size() + " message(s) of " + name);
            }
            for (Outcome outcome : outcomes) {
                if (outcome.error() != null) {
                    return outcome.error();
                }
            }
            return null;
        }

        /**
         * After a call came back: the next batch to send, up to a call's worth of what waited; null when nothing
         * waits, or when a call failed for want of Redis, which fails what waited, unsent: it would wait out a
         * timeout of its own. What a script refused leaves the others to go.
         */
        private @Nullable List<Pending> advance(@Nullable Throwable failure) {
            boolean outage = failure != null && RedisFailures.unreachableCause(failure) != null;
            List<Pending> unsent;
            synchronized (this) {
                if (waiting.isEmpty() || outage) {
                    unsent = waiting;
                    waiting = new ArrayList<>();
                    busy = false;
                } else {
                    return take();
                }
            }
            // what waited is left only when the call failed
            left(unsent);
            if (outage && !unsent.isEmpty()) {
                RmqUnavailableException notSent = new RmqUnavailableException("not sent: the call before it to "
                        + name + " failed (" + failure + "); send it again", failure);
                unsent.forEach(pending -> pending.result().completeExceptionally(notSent));
            }
            return null;
        }

        /**
         * Completes each message: with its outcome, or with the failure when the calls failed as a whole (or did not
         * answer one outcome a message).
         */
        private static void complete(List<Pending> batch, @Nullable List<Outcome> outcomes, @Nullable Throwable error,
                                     @Nullable Throwable failure) {
            boolean whole = error != null || outcomes == null || outcomes.size() != batch.size();
            for (int i = 0; i < batch.size(); i++) {
                CompletableFuture<SendCall.Result> result = batch.get(i).result();
                if (whole || outcomes == null) {
                    result.completeExceptionally(failure);
                } else if (outcomes.get(i).error() != null) {
                    result.completeExceptionally(outcomes.get(i).error());
                } else {
                    result.complete(outcomes.get(i).result());
                }
            }
        }

        /** Up to a call's worth of what waits; called holding the lane. */
        private List<Pending> take() {
            int size = Math.min(waiting.size(), ScriptProducer.MESSAGES_PER_CALL);
            if (size == waiting.size()) {
                List<Pending> all = waiting;
                waiting = new ArrayList<>();
                return all;
            }
            List<Pending> some = new ArrayList<>(waiting.subList(0, size));
            waiting.subList(0, size).clear();
            return some;
        }
    }
}
