package dev.rmq.spring.listener;

import dev.rmq.codec.PayloadCodecException;
import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.RmqBatchFailedException;
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
        if (messages) {
            return invoke(batch);
        }
        List<Object> payloads = new ArrayList<>(batch.size());
        for (RmqMessage<Object> message : batch) {
            if (message.payload() == null) {
                break;
            }
            payloads.add(message.payload());
        }
        if (payloads.size() == batch.size()) {
            return invoke(payloads);
        }
        // a JSON "null" payload, which a List<T> cannot sensibly carry: those before it are handled, it goes dead as
        // a payload that cannot be read, and those after it come in the next poll
        int nullAt = payloads.size();
        if (nullAt > 0) {
            BatchResult before = invoke(payloads);
            if (!before.allSucceeded()) {
                throw new IllegalStateException("a batch listener of payloads cut short before a JSON null payload"
                        + " must succeed or throw RmqBatchFailedException; its whole batch is retried");
            }
        }
        throw new RmqBatchFailedException(nullAt, new PayloadCodecException("payload of message '"
                + batch.get(nullAt).key() + "' is JSON null, which a List<T> batch listener cannot receive", null));
    }

    private BatchResult invoke(List<?> argument) throws Exception {
        Object returned = method.invoke(MessageBuilder.withPayload(argument).build());
        return returned instanceof BatchResult result ? result : BatchResult.success();
    }
}
