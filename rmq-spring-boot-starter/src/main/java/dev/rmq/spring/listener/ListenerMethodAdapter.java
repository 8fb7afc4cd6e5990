package dev.rmq.spring.listener;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.MessageBuilder;

import java.util.Map;

/**
 * Runs a listener method for each delivered message and turns what it did into a {@link ConsumeResult}:
 * a normal return, {@code true} or a success result commits; {@code false} or a retry result rolls back;
 * a thrown exception propagates, and rmq-core rolls back with it as the reason.
 */
final class ListenerMethodAdapter implements RmqHandler<Object> {

    static final String RETURNED_FALSE = "listener returned false";
    /** A JSON "null" decodes to null, which no listener parameter can sensibly receive. */
    static final ConsumeResult NULL_PAYLOAD =
            ConsumeResult.dead("payload is JSON null, which a listener cannot receive");

    private final InvocableHandlerMethod method;

    ListenerMethodAdapter(InvocableHandlerMethod method) {
        this.method = method;
    }

    @Override
    public ConsumeResult handle(RmqMessage<Object> message) throws Exception {
        if (message.payload() == null) {
            return NULL_PAYLOAD;
        }
        return toResult(method.invoke(toSpringMessage(message)));
    }

    static ConsumeResult toResult(@Nullable Object returned) {
        if (returned instanceof ConsumeResult result) {
            return result;
        }
        if (Boolean.FALSE.equals(returned)) {
            return ConsumeResult.retry(RETURNED_FALSE);
        }
        return ConsumeResult.success();
    }

    static Message<Object> toSpringMessage(RmqMessage<Object> message) {
        MessageBuilder<Object> builder = MessageBuilder.withPayload(message.payload());
        for (Map.Entry<String, String> header : message.headers().entrySet()) {
            // "id" and "timestamp" are read-only in spring-messaging; RmqMessage.headers() still has them.
            if (!MessageHeaders.ID.equals(header.getKey()) && !MessageHeaders.TIMESTAMP.equals(header.getKey())) {
                builder.setHeader(header.getKey(), header.getValue());
            }
        }
        builder.setHeader(RmqHeaders.MESSAGE, message)
                .setHeader(RmqHeaders.TOPIC, message.topic())
                .setHeader(RmqHeaders.SLOT, message.slot())
                .setHeader(RmqHeaders.KEY, message.key())
                .setHeader(RmqHeaders.ATTEMPT, message.attempt())
                .setHeader(RmqHeaders.LAST_ERROR, message.lastError());
        message.dueTime().ifPresent(due -> builder.setHeader(RmqHeaders.DUE_TIME, due));
        message.priority().ifPresent(priority -> builder.setHeader(RmqHeaders.PRIORITY, priority));
        return builder.build();
    }
}
