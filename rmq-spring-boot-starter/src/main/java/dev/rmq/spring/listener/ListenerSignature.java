package dev.rmq.spring.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Objects;

/**
 * What a listener method is, as read from its parameters and return type.
 *
 * @param payloadType what each payload is decoded into
 * @param shape       how it is called
 * @param messages    for a batch listener, whether it takes {@code List<RmqMessage<T>>} rather than {@code List<T>}
 * @param suspending  whether it is a Kotlin {@code suspend} function
 */
public record ListenerSignature(Type payloadType, Shape shape, boolean messages, boolean suspending) {

    /** How a listener method is called. */
    public enum Shape {
        /** With one message; it returns when it is done with it. */
        SINGLE,
        /** With one message; what it returns completes when it is done with it. */
        ASYNC,
        /** With the messages of one poll of one slot. */
        BATCH
    }

    public ListenerSignature {
        Objects.requireNonNull(payloadType, "payloadType");
        Objects.requireNonNull(shape, "shape");
    }

    /**
     * What {@code method} of {@code beanType} is, as an {@code @RmqListener}.
     *
     * @throws IllegalArgumentException saying what is wrong with the signature, and what is allowed
     */
    public static ListenerSignature of(Class<?> beanType, Method method) {
        return ListenerMethodSignature.of(beanType, method);
    }
}
