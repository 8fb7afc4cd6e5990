package dev.rmq.spring.listener;

import dev.rmq.consumer.RmqMessage;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * Reads what a listener method takes and returns, and refuses what rmq cannot serve, so that a bad
 * signature fails start-up instead of every delivery. The payload type comes from the payload parameter
 * (unannotated, or with {@code @Payload}) or from {@code RmqMessage<T>}; {@code @Header} and
 * {@code @Headers} parameters are left to spring-messaging's resolvers.
 */
final class ListenerMethodSignature {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private ListenerMethodSignature() {
    }

    /**
     * The type the payload is decoded into.
     *
     * @throws IllegalArgumentException saying what is wrong with the signature
     */
    static Type payloadType(Class<?> beanType, Method method) {
        checkReturnType(beanType, method);
        ResolvableType messageType = null;
        ResolvableType payloadType = null;
        String payloadParameter = null;
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i).withContainingClass(beanType);
            parameter.initParameterNameDiscovery(PARAMETER_NAMES);
            if (parameter.hasParameterAnnotation(Header.class) || parameter.hasParameterAnnotation(Headers.class)) {
                continue;
            }
            ResolvableType type = ResolvableType.forMethodParameter(parameter);
            if (Message.class.isAssignableFrom(parameter.getParameterType())) {
                throw new IllegalArgumentException("parameter " + name(parameter) + " is a spring-messaging Message,"
                        + " which rmq does not pass; take RmqMessage<T> for the payload with its key, attempt and headers");
            }
            if (RmqMessage.class.isAssignableFrom(parameter.getParameterType())) {
                if (messageType != null) {
                    throw new IllegalArgumentException("it takes more than one RmqMessage parameter");
                }
                messageType = type.as(RmqMessage.class).getGeneric(0);
                checkResolved(messageType, "the type argument of its RmqMessage parameter");
                continue;
            }
            if (payloadType != null) {
                throw new IllegalArgumentException("both parameter " + payloadParameter + " and parameter "
                        + name(parameter) + " could be the payload; annotate the others with @Header, or take"
                        + " RmqMessage<T> for the message's metadata");
            }
            payloadType = type;
            payloadParameter = name(parameter);
            checkResolved(payloadType, "the type of parameter " + payloadParameter);
        }
        if (messageType == null && payloadType == null) {
            throw new IllegalArgumentException("it takes neither a payload nor an RmqMessage<T> parameter");
        }
        if (messageType != null && payloadType != null
                && !ClassUtils.resolvePrimitiveIfNecessary(payloadType.toClass()).equals(messageType.toClass())) {
            throw new IllegalArgumentException("its payload parameter " + payloadParameter + " is a " + payloadType
                    + " but its RmqMessage parameter carries a " + messageType);
        }
        ResolvableType chosen = payloadType != null ? payloadType : messageType;
        return chosen.getType() instanceof Class<?> c ? ClassUtils.resolvePrimitiveIfNecessary(c) : chosen.getType();
    }

    private static void checkReturnType(Class<?> beanType, Method method) {
        Class<?> returned = ResolvableType.forMethodReturnType(method, beanType).toClass();
        // A listener that hands back a future would be committed before its work is done, which
        // silently turns at-least-once into at-most-once.
        if (Future.class.isAssignableFrom(returned) || CompletionStage.class.isAssignableFrom(returned)
                || isReactive(returned)) {
            throw new IllegalArgumentException("it returns " + returned.getSimpleName() + ", but listener methods must"
                    + " finish their work before they return: return void, boolean or ConsumeResult");
        }
    }

    private static boolean isReactive(Class<?> type) {
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (i.getName().equals("org.reactivestreams.Publisher")) {
                return true;
            }
        }
        return false;
    }

    private static void checkResolved(ResolvableType type, String what) {
        if (type == ResolvableType.NONE || type.hasUnresolvableGenerics() || type.resolve() == null
                || type.getType() instanceof java.lang.reflect.TypeVariable<?>
                || type.getType() instanceof java.lang.reflect.WildcardType) {
            throw new IllegalArgumentException(what + " is not a concrete type (" + type
                    + "); the payload needs one to be decoded, e.g. RmqMessage<Order> or Map<String, Object>");
        }
    }

    private static String name(MethodParameter parameter) {
        String name = parameter.getParameterName();
        return (name != null ? "'" + name + "'" : "#" + parameter.getParameterIndex()) + " ("
                + parameter.getParameterType().getSimpleName() + ")";
    }
}
