package dev.rmq.internal.consumer;

import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqBatchHandler;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

/**
 * A container's handler, of whichever shape: one message at a time, one message with a result that completes later,
 * or a poll's messages together.
 *
 * @param <T> the payload type
 */
public final class Handlers<T> {

    private final RmqHandler<T> single;
    private final RmqAsyncHandler<T> async;
    private final RmqBatchHandler<T> batch;

    private Handlers(RmqHandler<T> single, RmqAsyncHandler<T> async, RmqBatchHandler<T> batch) {
        this.single = single;
        this.async = async;
        this.batch = batch;
    }

    public static <T> Handlers<T> single(RmqHandler<T> handler) {
        return new Handlers<>(handler, null, null);
    }

    public static <T> Handlers<T> async(RmqAsyncHandler<T> handler) {
        return new Handlers<>(null, handler, null);
    }

    public static <T> Handlers<T> batch(RmqBatchHandler<T> handler) {
        return new Handlers<>(null, null, handler);
    }

    Invoker<T> invoker(TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        if (single != null) {
            return new SingleInvoker<>(single, topic, metrics, errorHandler);
        }
        if (async != null) {
            return new AsyncInvoker<>(async, topic, metrics, errorHandler);
        }
        return new BatchInvoker<>(batch, topic, metrics, errorHandler);
    }
}
