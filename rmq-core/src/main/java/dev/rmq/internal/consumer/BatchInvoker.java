package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.Delivery;
import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqBatchFailedException;
import dev.rmq.consumer.RmqBatchHandler;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Calls an {@link RmqBatchHandler} on all that is left of a poll, with the leases of the whole batch renewed while
 * it runs, and turns what it did into one outcome per message: see {@link RmqBatchHandler}.
 */
final class BatchInvoker<T> extends Invoker<T> {

    private final RmqBatchHandler<T> handler;

    BatchInvoker(RmqBatchHandler<T> handler, TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        super(topic, metrics, errorHandler);
        this.handler = handler;
    }

    @Override
    boolean takesBatch() {
        return true;
    }

    @Override
    List<Handled> invoke(List<Delivery<T>> taken, Call call) {
        List<RmqMessage<T>> messages = Collections.unmodifiableList(new ArrayList<>(taken));
        long start = System.nanoTime();
        BatchResult result;
        try (Invoker.Call.Kept ignored = call.keepLeases()) {
            result = handler.handle(messages);
        } catch (RmqBatchFailedException e) {
            int index = indexOf(e, messages);
            if (index >= 0) {
                return failedAt(taken, index, e.getCause() != null ? e.getCause() : e, call.control(), start);
            }
            return failedAll(taken, new IllegalStateException(e.getMessage() + ", but the batch has "
                    + taken.size() + " message(s) and none is that one; the whole batch fails", e), call.control(),
                    start);
        } catch (Throwable e) {
            rethrowIfFatal(e);
            return failedAll(taken, e, call.control(), start);
        }
        if (result == null) {
            result = BatchResult.success();
        }
        if (!result.fits(taken.size())) {
            return failedAll(taken, new IllegalStateException("the batch handler returned " + result.outcomes().size()
                    + " outcome(s) for " + taken.size() + " message(s); the whole batch fails"), call.control(), start);
        }
        List<Handled> handled = new ArrayList<>(taken.size());
        for (int i = 0; i < taken.size(); i++) {
            handled.add(returned(result.outcome(i), start));
        }
        return handled;
    }

    /** The place in the batch of the message the exception names, or -1 when it names none of them. */
    private static int indexOf(RmqBatchFailedException e, List<? extends RmqMessage<?>> messages) {
        if (e.failedMessage() == null) {
            return e.index() < messages.size() ? e.index() : -1;
        }
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) == e.failedMessage()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Those before {@code index} succeeded, the one at it failed (or was cut off by the stop), those after it never
     * started.
     */
    private List<Handled> failedAt(List<Delivery<T>> taken, int index, Throwable cause, WorkerControl control,
                                   long start) {
        Handled failed = failed(taken.get(index), cause, control, start);
        List<Handled> handled = new ArrayList<>(taken.size());
        for (int i = 0; i < index; i++) {
            handled.add(returned(ConsumeResult.success(), start));
        }
        handled.add(failed);
        for (int i = index + 1; i < taken.size(); i++) {
            handled.add(Handled.UNSTARTED);
        }
        return handled;
    }

    /** Every message failed with {@code error}, each as the error handler decides. */
    private List<Handled> failedAll(List<Delivery<T>> taken, Throwable error, WorkerControl control, long start) {
        List<Handled> handled = new ArrayList<>(taken.size());
        for (Delivery<T> delivery : taken) {
            Handled failed = failed(delivery, error, control, start);
            if (failed == Handled.CUT_OFF) {
                return Collections.nCopies(taken.size(), Handled.CUT_OFF);
            }
            handled.add(failed);
        }
        return handled;
    }
}
