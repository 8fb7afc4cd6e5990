package dev.rmq.internal.producer;

import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.SendCall;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Single sends, with at most one script call of them in flight per lane: per slot on a Cluster, per topic where one
 * Redis master holds every key (a call then carries several slots, see {@link SendPlan}). A send that finds its lane
 * idle goes out at once, alone; sends that come while a call is out wait for it and then go together in one call
 * of up to {@value ScriptProducer#MESSAGES_PER_CALL} messages. There is no linger: a lone send is never held back,
 * and concurrent senders share a call's fixed cost in Redis instead of each paying it.
 *
 * <p>A slot's single sends run in Redis in the order they were made, even over a pool of connections: a sender
 * that calls {@code sendAsync} twice finds its second message after its first, merged into it when the key is the
 * same. A call that fails fails each of its messages with the call's error, as a call of one would, and the sends
 * waiting behind it fail at once, unsent, rather than each waiting out a timeout of its own in turn.
 *
 * <p>One call in flight per lane is what pays most where senders crowd a slot: with 100 callers on one slot, a
 * fiftieth of the calls and over three times the rate. Over 16 slots, lanes per slot made a quarter of the calls
 * and nearly twice the rate; a lane per topic shares calls as one slot does. Its cost is where a few callers spread
 * out: a send that meets another in its lane waits out that call's round trip, for little sharing
 * (docs/benchmarks.md has the figures).
 */
final class SendCoalescer {

    /** Makes the script calls that send the messages, each slot's in the order given; a result for each, in order. */
    interface Calls {
        CompletableFuture<List<SendCall.Result>> send(List<SendPlan.Item> items);
    }

    private final Calls calls;
    private final boolean lanePerTopic;
    private final Map<Object, Lane> lanes = new ConcurrentHashMap<>();
    private final Function<Object, Lane> newLane = Lane::new;

    /** @param lanePerTopic whether a topic's slots share one lane (one Redis master holds every key) */
    SendCoalescer(Calls calls, boolean lanePerTopic) {
        this.calls = calls;
        this.lanePerTopic = lanePerTopic;
    }

    /** Sends one message to its slot, now or with its lane's next call; completes with what the script did with it. */
    CompletableFuture<SendCall.Result> send(SendPlan.Item item) {
        Object lane = lanePerTopic ? item.topic().name() : item.slot();
        return lanes.computeIfAbsent(lane, newLane).send(new Pending(item, new CompletableFuture<>()));
    }

    private record Pending(SendPlan.Item item, CompletableFuture<SendCall.Result> result) {
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
                    waiting.add(pending);
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
                CompletableFuture<List<SendCall.Result>> call = call(batch);
                if (!call.isDone()) {
                    List<Pending> sent = batch;
                    call.whenComplete((results, error) -> {
                        Throwable failure = failure(sent, results, error);
                        // the next call goes out before this one's senders run their continuations, which could
                        // otherwise hold it up
                        List<Pending> next = advance(failure);
                        try {
                            if (next != null) {
                                dispatch(next);
                            }
                        } finally {
                            complete(sent, results, failure);
                        }
                    });
                    return;
                }
                List<SendCall.Result> results = call.exceptionally(error -> null).join();
                Throwable failure = failure(batch, results, call.handle((value, error) -> error).join());
                List<Pending> next = advance(failure);
                complete(batch, results, failure);
                batch = next;
            }
        }

        private CompletableFuture<List<SendCall.Result>> call(List<Pending> batch) {
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

        /** The call's error, or one when its reply does not hold a result for each message; null when it went well. */
        private @Nullable Throwable failure(List<Pending> batch, List<SendCall.Result> results,
                                            @Nullable Throwable error) {
            if (error != null || results.size() == batch.size()) {
                return error;
            }
            return new IllegalStateException("the send script answered " + results.size() + " result(s) for "
                    + batch.size() + " message(s) of " + name);
        }

        /**
         * After a call came back: the next batch to send, up to a call's worth of what waited; null when nothing
         * waits, or when the call failed, which fails what waited, unsent.
         */
        private @Nullable List<Pending> advance(@Nullable Throwable failure) {
            List<Pending> unsent;
            synchronized (this) {
                if (waiting.isEmpty() || failure != null) {
                    unsent = waiting;
                    waiting = new ArrayList<>();
                    busy = false;
                } else {
                    return take();
                }
            }
            // what waited is left only when the call failed
            if (failure != null && !unsent.isEmpty()) {
                RmqUnavailableException notSent = new RmqUnavailableException("not sent: the call before it to "
                        + name + " failed (" + failure + "); send it again", failure);
                unsent.forEach(pending -> pending.result().completeExceptionally(notSent));
            }
            return null;
        }

        private static void complete(List<Pending> batch, List<SendCall.Result> results, @Nullable Throwable failure) {
            for (int i = 0; i < batch.size(); i++) {
                if (failure != null) {
                    batch.get(i).result().completeExceptionally(failure);
                } else {
                    batch.get(i).result().complete(results.get(i));
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
