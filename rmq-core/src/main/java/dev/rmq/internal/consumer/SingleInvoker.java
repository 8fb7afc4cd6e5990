package dev.rmq.internal.consumer;

import dev.rmq.internal.slot.Delivery;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.topic.TopicDefinition;

import java.util.List;

/**
 * Calls an {@link RmqHandler} on one message and waits for it on the worker's thread. Its message's lease is not
 * renewed while it runs: the lease is its time limit, and a long handler extends its own lease if it needs to.
 */
final class SingleInvoker<T> extends Invoker<T> {

    private final RmqHandler<T> handler;

    SingleInvoker(RmqHandler<T> handler, TopicDefinition topic, RmqMetrics metrics, RmqErrorHandler errorHandler) {
        super(topic, metrics, errorHandler);
        this.handler = handler;
    }

    @Override
    List<Handled> invoke(List<Delivery<T>> taken, Call call) {
        Delivery<T> delivery = taken.get(0);
        long start = System.nanoTime();
        ConsumeResult result;
        try {
            result = handler.handle(delivery);
        } catch (Throwable e) {
            rethrowIfFatal(e);
            return List.of(failed(delivery, e, call.control(), start));
        }
        return List.of(returned(result, start));
    }
}
