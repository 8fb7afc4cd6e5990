package dev.rmq.spring.listener;

import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.RmqBatchHandler;
import dev.rmq.consumer.RmqMessage;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.MessageBuilder;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a batch listener method on the messages of one poll: it takes them as {@code List<RmqMessage<T>>}, or their
 * payloads as {@code List<T>}. Returning normally or a {@link BatchResult} says what became of each; an
 * {@link dev.rmq.consumer.RmqBatchFailedException} names the one that failed.
 */
final class BatchListenerMethodAdapter implements RmqBatchHandler<Object> {

    private final InvocableHandlerMethod method;
    private final boolean messages;

    BatchListenerMethodAdapter(InvocableHandlerMethod method, boolean messages) {
        this.method = method;
        this.messages = messages;
    }

    @Override
    public BatchResult handle(List<RmqMessage<Object>> batch) throws Exception {
        Object argument = batch;
        if (!messages) {
            List<Object> payloads = new ArrayList<>(batch.size());
            batch.forEach(message -> payloads.add(message.payload()));
            argument = payloads;
        }
        Object returned = method.invoke(MessageBuilder.withPayload(argument).build());
        return returned instanceof BatchResult result ? result : BatchResult.success();
    }
}
