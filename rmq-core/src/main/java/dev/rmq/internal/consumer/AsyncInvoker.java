package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.Delivery;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Calls an {@link RmqAsyncHandler} on one message and waits for the stage it returns before the slot's next message
 * starts, so that one slot's messages are still handled one after another. While the stage is pending, a timer
 * extends the leases of the message, of the rest of its poll, and of those done whose acknowledgement waits. A
 * stopping worker waits until its handlers' deadline, then gives up on the stage, whatever the stage does later: at
 * least once, the message goes back as if never started; at most once, it had left Redis, and is lost.
 */
final class AsyncInvoker<T> extends Invoker<T> {

    /** How often a wait on a pending stage looks at whether the stop's deadline has passed. */
    private static final long CHECK_MILLIS = 20;

    private final RmqAsyncHandler<T> handler;

    AsyncInvoker(RmqAsyncHandler<T> handler, TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        super(topic, metrics, errorHandler);
        this.handler = handler;
    }

    @Override
    List<Handled> invoke(List<Delivery<T>> taken, Call call) {
        Delivery<T> delivery = taken.get(0);
        WorkerControl control = call.control();
        long start = System.nanoTime();
        CompletableFuture<ConsumeResult> pending = new CompletableFuture<>();
        try {
            CompletionStage<ConsumeResult> stage = handler.handle(delivery);
            if (stage == null) {
                return List.of(returned(null, start));
            }
            stage.whenComplete((result, error) -> {
                if (error != null) {
                    pending.completeExceptionally(error);
                } else {
                    pending.complete(result);
                }
            });
        } catch (Throwable e) {
            rethrowIfFatal(e);
            return List.of(failed(delivery, e, control, start));
        }
        if (pending.isDone()) {
            return List.of(outcome(delivery, pending, control, start));
        }
        try (Invoker.Call.Kept ignored = call.keepLeases()) {
            while (!control.outOfTime()) {
                try {
                    pending.get(CHECK_MILLIS, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    // look at the stop's deadline again
                } catch (InterruptedException e) {
                    if (control.stopping()) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                    // an interrupt the handler left set on the worker's thread, cleared by the throw: the wait goes on
                } catch (ExecutionException | CancellationException e) {
                    break;
                }
            }
        }
        if (!pending.isDone()) {
            return List.of(Handled.CUT_OFF);
        }
        return List.of(outcome(delivery, pending, control, start));
    }

    private Handled outcome(Delivery<T> delivery, CompletableFuture<ConsumeResult> done, WorkerControl control,
                            long start) {
        try {
            return returned(done.getNow(null), start);
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            return failed(delivery, cause, control, start);
        }
    }
}
