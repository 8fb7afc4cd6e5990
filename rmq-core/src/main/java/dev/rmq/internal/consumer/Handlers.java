package dev.rmq.internal.consumer;

import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqBatchHandler;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

/**
 * A container's handler, of whichever shape: one message at a time, one message with a result that completes later,
 * or a poll's messages together. Each worker gets an {@link Invoker} of it.
 *
 * @param <T> the payload type
 */
public final class Handlers<T> {

    /** Makes a worker's invoker of the handler. */
    @FunctionalInterface
    private interface InvokerFactory<T> {
        Invoker<T> make(TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler);
    }

    private final InvokerFactory<T> invokers;

    private Handlers(InvokerFactory<T> invokers) {
        this.invokers = invokers;
    }

    public static <T> Handlers<T> single(RmqHandler<T> handler) {
        return new Handlers<>((topic, metrics, errors) -> new SingleInvoker<>(handler, topic, metrics, errors));
    }

    public static <T> Handlers<T> async(RmqAsyncHandler<T> handler) {
        return new Handlers<>((topic, metrics, errors) -> new AsyncInvoker<>(handler, topic, metrics, errors));
    }

    public static <T> Handlers<T> batch(RmqBatchHandler<T> handler) {
        return new Handlers<>((topic, metrics, errors) -> new BatchInvoker<>(handler, topic, metrics, errors));
    }

    Invoker<T> invoker(TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        return invokers.make(topic, metrics, errorHandler);
    }
}
