package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.Delivery;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * How a container calls its handler, and what came of each message it gave it: one message at a time and
 * synchronously ({@link SingleInvoker}), one message at a time with a result that completes later
 * ({@link AsyncInvoker}), or a poll's messages together ({@link BatchInvoker}).
 *
 * @param <T> the payload type
 */
abstract sealed class Invoker<T> permits SingleInvoker, AsyncInvoker, BatchInvoker {

    /** What came of one delivery: a result when {@link Kind#DONE}, and a cause when the handler threw. */
    record Handled(Kind kind, @Nullable ConsumeResult result, @Nullable Throwable cause) {

        enum Kind {
            /** The handler decided, or its failure was decided on. */
            DONE,
            /** Never started: it goes back with its place and attempt count. */
            UNSTARTED,
            /** Started, then cut off by the container's stop: not the message's failure. */
            CUT_OFF
        }

        static final Handled UNSTARTED = new Handled(Kind.UNSTARTED, null, null);
        static final Handled CUT_OFF = new Handled(Kind.CUT_OFF, null, null);

        static Handled done(ConsumeResult result, @Nullable Throwable cause) {
            return new Handled(Kind.DONE, result, cause);
        }
    }

    protected final TopicDefinition topic;
    protected final RmqMetrics metrics;
    private final RmqErrorHandler errorHandler;

    Invoker(TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        this.topic = topic;
        this.metrics = metrics;
        this.errorHandler = errorHandler;
    }

    /** Whether one call takes all that is left of a poll, rather than its first message. */
    boolean takesBatch() {
        return false;
    }

    /**
     * Runs the handler on {@code taken}: the first message of the rest of a poll, or all of it.
     *
     * @param call the worker's side of the call
     * @return one outcome per message taken, in order
     */
    abstract List<Handled> invoke(List<Delivery<T>> taken, Call call);

    /** What an invoker needs of the worker during one call. */
    interface Call {

        WorkerControl control();

        /**
         * From now until closed, the leases of the messages the call took are renewed with the rest of the batch's:
         * for a batch, or a result that is pending. Otherwise a running handler's lease is its time limit.
         */
        Kept keepLeases();

        /** Ends what {@link #keepLeases()} began. */
        interface Kept extends AutoCloseable {
            @Override
            void close();
        }
    }

    /** The outcome of a handler that threw {@code error}: {@link Handled#CUT_OFF} when the stop cut it off. */
    protected Handled failed(RmqMessage<?> message, Throwable error, WorkerControl control, long startNanos) {
        if (cutOffByStop(error, control)) {
            return Handled.CUT_OFF;
        }
        ConsumeResult result = error instanceof Exception e ? decide(message, e)
                : ConsumeResult.retry(RmqErrorHandler.describe(error));
        metrics.consumed(topic, result.outcome(), System.nanoTime() - startNanos);
        return Handled.done(result, error);
    }

    /** The outcome of a handler that returned {@code result}; null counts as a success. */
    protected Handled returned(@Nullable ConsumeResult result, long startNanos) {
        ConsumeResult decided = result == null ? ConsumeResult.success() : result;
        metrics.consumed(topic, decided.outcome(), System.nanoTime() - startNanos);
        return Handled.done(decided, null);
    }

    /** The error handler's decision on a handler's exception; a retry when it fails or answers success. */
    private ConsumeResult decide(RmqMessage<?> message, Exception error) {
        try {
            ConsumeResult decided = errorHandler.handle(message, error);
            if (decided != null && decided.outcome() != ConsumeResult.Outcome.SUCCESS) {
                return decided;
            }
        } catch (Throwable e) {
            rethrowIfFatal(e);
            error.addSuppressed(e);
        }
        return ConsumeResult.retry(RmqErrorHandler.describe(error));
    }

    /**
     * Rethrows what the JVM may not go on after (a {@link VirtualMachineError} such as {@link OutOfMemoryError}),
     * so that it is not taken for the handler's failure. Anything else a handler throws is its failure, an
     * {@link Error} too (Kotlin's {@code TODO()} throws one); a {@link StackOverflowError} is the handler's own, its
     * stack unwound by the time it is caught.
     */
    static void rethrowIfFatal(Throwable e) {
        if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError)) {
            throw fatal;
        }
    }

    /** Whether a handler failed because the stop interrupted it, directly or through a wrapping exception. */
    private static boolean cutOffByStop(Throwable e, WorkerControl control) {
        if (!control.stopping()) {
            return false;
        }
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

}
