package dev.rmq.spring.listener;

import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqMessage;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * Reads what a listener method takes and returns, and refuses what rmq cannot serve, so that a bad signature fails
 * start-up instead of every delivery. Three shapes are served:
 * <ul>
 *   <li>one message: the payload (unannotated, or with {@code @Payload}) and/or {@code RmqMessage<T>}, with any
 *       {@code @Header} and {@code @Headers} parameters; it returns {@code void}, {@code boolean} or
 *       {@link ConsumeResult};</li>
 *   <li>one message, asynchronously: the same parameters, returning a {@link CompletionStage} or a single-value
 *       reactive type such as Reactor's {@code Mono}, or a Kotlin {@code suspend} function;</li>
 *   <li>a batch: one parameter, {@code List<T>} or {@code List<RmqMessage<T>>}, returning {@code void} or
 *       {@link BatchResult}.</li>
 * </ul>
 */
final class ListenerMethodSignature {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";
    /** Whether Reactor is here to wait for reactive results. */
    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
            ListenerMethodSignature.class.getClassLoader());

    private ListenerMethodSignature() {
    }

    /**
     * What {@code method} of {@code beanType} is.
     *
     * @throws IllegalArgumentException saying what is wrong with the signature, and what is allowed
     */
    static ListenerSignature of(Class<?> beanType, Method method) {
        boolean suspending = isSuspending(method);
        ResolvableType list = batchParameter(beanType, method);
        if (list != null) {
            return batch(beanType, method, list, suspending);
        }
        boolean async = suspending || isAsync(ResolvableType.forMethodReturnType(method, beanType).toClass());
        if (!async) {
            checkSingleReturn(beanType, method);
        }
        return new ListenerSignature(payloadType(beanType, method, suspending),
                async ? ListenerSignature.Shape.ASYNC : ListenerSignature.Shape.SINGLE, false, suspending);
    }

    /** The type of the method's List parameter, or null when it takes none. */
    private static @Nullable ResolvableType batchParameter(Class<?> beanType, Method method) {
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (List.class.isAssignableFrom(method.getParameterTypes()[i]) && !annotated(parameter(beanType, method, i))) {
                return ResolvableType.forMethodParameter(parameter(beanType, method, i));
            }
        }
        return null;
    }

    private static ListenerSignature batch(Class<?> beanType, Method method, ResolvableType list, boolean suspending) {
        if (suspending) {
            throw new IllegalArgumentException("it is a suspend function that takes a List: batch listeners are"
                    + " called synchronously; drop 'suspend', or take one message");
        }
        if (method.getParameterCount() != 1) {
            throw new IllegalArgumentException("it takes a List and " + (method.getParameterCount() - 1)
                    + " more parameter(s): a batch listener takes one parameter, List<T> or List<RmqMessage<T>>,"
                    + " and reads each message's headers from RmqMessage");
        }
        Class<?> returned = ResolvableType.forMethodReturnType(method, beanType).toClass();
        if (returned != void.class && returned != Void.class && returned != BatchResult.class) {
            throw new IllegalArgumentException("it takes a List, so it is a batch listener, and returns "
                    + returned.getSimpleName() + ": a batch listener returns void or BatchResult, and names a failed"
                    + " message by throwing RmqBatchFailedException");
        }
        ResolvableType element = list.as(List.class).getGeneric(0);
        boolean messages = RmqMessage.class.isAssignableFrom(element.toClass());
        ResolvableType payload = messages ? element.as(RmqMessage.class).getGeneric(0) : element;
        checkResolved(payload, messages ? "the type argument of the RmqMessage in its List parameter"
                : "the element type of its List parameter");
        if (List.class.isAssignableFrom(payload.toClass()) || Message.class.isAssignableFrom(payload.toClass())) {
            throw new IllegalArgumentException("its List parameter carries " + payload + ": a batch listener takes"
                    + " List<T> or List<RmqMessage<T>> where T is the topic's payload type");
        }
        return new ListenerSignature(resolved(payload), ListenerSignature.Shape.BATCH, messages, false);
    }

    private static Type payloadType(Class<?> beanType, Method method, boolean suspending) {
        ResolvableType messageType = null;
        ResolvableType payloadType = null;
        String payloadParameter = null;
        int parameters = method.getParameterCount() - (suspending ? 1 : 0);
        for (int i = 0; i < parameters; i++) {
            MethodParameter parameter = parameter(beanType, method, i);
            if (annotated(parameter)) {
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
        ResolvableType chosen = payloadType != null ? payloadType : messageType;
        if (chosen == null) {
            throw new IllegalArgumentException("it takes neither a payload nor an RmqMessage<T> parameter");
        }
        if (messageType != null && payloadType != null
                && !ClassUtils.resolvePrimitiveIfNecessary(payloadType.toClass()).equals(messageType.toClass())) {
            throw new IllegalArgumentException("its payload parameter " + payloadParameter + " is a " + payloadType
                    + " but its RmqMessage parameter carries a " + messageType);
        }
        return resolved(chosen);
    }

    private static Type resolved(ResolvableType chosen) {
        return chosen.getType() instanceof Class<?> c ? ClassUtils.resolvePrimitiveIfNecessary(c) : chosen.getType();
    }

    /** Whether the method is a Kotlin suspend function: its last parameter is the continuation. */
    static boolean isSuspending(Method method) {
        int count = method.getParameterCount();
        return count > 0 && method.getParameterTypes()[count - 1].getName().equals(CONTINUATION)
                && KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
    }

    /** Whether a listener returning {@code returned} completes later: a stage, or a single-value reactive type. */
    private static boolean isAsync(Class<?> returned) {
        if (CompletionStage.class.isAssignableFrom(returned)) {
            return true;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned);
        if (adapter == null || !REACTOR) {
            if (isPublisher(returned)) {
                // committed at once, it would be acknowledged before its work ran
                throw new IllegalArgumentException("it returns " + returned.getSimpleName() + ", which rmq waits for"
                        + " only through Reactor: add reactor-core, return a CompletionStage, or finish the work and"
                        + " return void, boolean or ConsumeResult");
            }
            return false;
        }
        if (adapter.isMultiValue()) {
            throw new IllegalArgumentException("it returns " + returned.getSimpleName() + ", which may emit many"
                    + " values: an asynchronous listener returns one outcome, as a CompletionStage or a Mono (of"
                    + " Void, Boolean or ConsumeResult), or is a Kotlin suspend function");
        }
        return true;
    }

    private static boolean isPublisher(Class<?> type) {
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (i.getName().equals("org.reactivestreams.Publisher")) {
                return true;
            }
        }
        return false;
    }

    private static void checkSingleReturn(Class<?> beanType, Method method) {
        Class<?> returned = ResolvableType.forMethodReturnType(method, beanType).toClass();
        // a Future that is not a stage cannot say when it is done without a thread blocking on it
        if (Future.class.isAssignableFrom(returned)) {
            throw new IllegalArgumentException("it returns " + returned.getSimpleName() + ", which cannot tell rmq"
                    + " when it completes: return a CompletionStage (CompletableFuture) or a Mono, or finish the work"
                    + " and return void, boolean or ConsumeResult");
        }
    }

    private static MethodParameter parameter(Class<?> beanType, Method method, int index) {
        MethodParameter parameter = new MethodParameter(method, index).withContainingClass(beanType);
        parameter.initParameterNameDiscovery(PARAMETER_NAMES);
        return parameter;
    }

    private static boolean annotated(MethodParameter parameter) {
        return parameter.hasParameterAnnotation(Header.class) || parameter.hasParameterAnnotation(Headers.class);
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
