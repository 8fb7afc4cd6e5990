package dev.rmq.internal.producer;

import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.SendCall;
import dev.rmq.topic.TopicDefinition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Single sends to one slot, with at most one script call of them in flight per slot. A send that finds the slot
 * idle goes out at once, alone; sends that come while a call is out wait for it and then go together in one call
 * of up to {@value ScriptProducer#MESSAGES_PER_CALL} messages. There is no linger: a lone send is never held back,
 * and concurrent senders share a call's fixed cost in Redis instead of each paying it.
 *
 * <p>A slot's single sends run in Redis in the order they were made, even over a pool of connections: a sender
 * that calls {@code sendAsync} twice finds its second message after its first, merged into it when the key is the
 * same. A call that fails fails each of its messages with the call's error, as a call of one would.
 *
 * <p>One call in flight per slot is what pays most where senders crowd a slot: with 100 callers, a tenth to a
 * fiftieth of the calls, two to three times the rate and half the latency. Its cost is where a few callers spread
 * over many slots: a send that meets another on its slot waits out that call's round trip, for little sharing
 * (docs/benchmarks.md has the figures, and those of two and four calls in flight, which shared less and gained
 * nothing there).
 */
final class SendCoalescer {

    /** Makes the script call that sends a slot's messages in the order given, a result for each. */
    interface Calls {
        CompletableFuture<List<SendCall.Result>> send(TopicDefinition topic, SlotKeys slot, List<SendCall.Message> messages);
    }

    private final Calls calls;
    private final Map<SlotKeys, Lane> lanes = new ConcurrentHashMap<>();
    private final Function<SlotKeys, Lane> newLane = Lane::new;

    SendCoalescer(Calls calls) {
        this.calls = calls;
    }

    /** Sends one message to its slot, now or with the slot's next call; completes with what the script did with it. */
    CompletableFuture<SendCall.Result> send(TopicDefinition topic, SlotKeys slot, SendCall.Message message) {
        return lanes.computeIfAbsent(slot, newLane).send(new Pending(topic, message, new CompletableFuture<>()));
    }

    private record Pending(TopicDefinition topic, SendCall.Message message, CompletableFuture<SendCall.Result> result) {
    }

    /** One slot's sends: whether a call is out, and the sends that wait for it to come back. */
    private final class Lane {

        private final SlotKeys slot;
        private List<Pending> waiting = new ArrayList<>();
        private boolean busy;

        Lane(SlotKeys slot) {
            this.slot = slot;
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

        private void dispatch(List<Pending> batch) {
            List<SendCall.Message> messages = new ArrayList<>(batch.size());
            for (Pending pending : batch) {
                messages.add(pending.message());
            }
            CompletableFuture<List<SendCall.Result>> call;
            try {
                call = calls.send(batch.get(0).topic(), slot, messages);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenComplete((results, error) -> {
                // the next call goes out before this one's senders run their continuations, so that they do not
                // hold it up
                next();
                Throwable failure = error != null || results.size() == batch.size() ? error
                        : new IllegalStateException("the send script answered " + results.size() + " result(s) for "
                        + batch.size() + " message(s) of " + slot.topic() + " slot " + slot.slot());
                for (int i = 0; i < batch.size(); i++) {
                    if (failure != null) {
                        batch.get(i).result().completeExceptionally(failure);
                    } else {
                        batch.get(i).result().complete(results.get(i));
                    }
                }
            });
        }

        /** Sends what waited, up to a call's worth, or marks the slot idle. */
        private void next() {
            List<Pending> batch;
            synchronized (this) {
                if (waiting.isEmpty()) {
                    busy = false;
                    return;
                }
                int size = Math.min(waiting.size(), ScriptProducer.MESSAGES_PER_CALL);
                if (size == waiting.size()) {
                    batch = waiting;
                    waiting = new ArrayList<>();
                } else {
                    batch = new ArrayList<>(waiting.subList(0, size));
                    waiting.subList(0, size).clear();
                }
            }
            dispatch(batch);
        }
    }
}
