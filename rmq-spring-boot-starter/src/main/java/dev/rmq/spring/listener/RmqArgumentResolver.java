package dev.rmq.spring.listener;

import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves a listener's {@link RmqMessage} parameter and its payload parameter. rmq-core has already
 * decoded the payload into the parameter's type (a payload it cannot decode goes to the dead queue), so
 * the payload is handed over as it is, with none of spring-messaging's conversions or emptiness checks.
 */
final class RmqArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return !parameter.hasParameterAnnotation(Header.class) && !parameter.hasParameterAnnotation(Headers.class)
                && !Message.class.isAssignableFrom(parameter.getParameterType());
    }

    @Override
    public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
        if (RmqMessage.class.isAssignableFrom(parameter.getParameterType())) {
            return message.getHeaders().get(RmqHeaders.MESSAGE);
        }
        return message.getPayload();
    }
}
