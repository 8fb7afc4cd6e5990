package dev.rmq.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What one {@code @RmqListener} method asks for, with every placeholder resolved: the description a
 * {@link RmqListenerContainerFactory} turns into a container.
 *
 * @param id               the container's id, unique in the application
 * @param topic            the topic to consume
 * @param beanName         the name of the bean that declares the method
 * @param bean             the bean to invoke the method on
 * @param method           the listener method, invocable on {@code bean} (a proxy's method when it is proxied)
 * @param signature        what the method takes and returns: its payload type and its shape
 * @param concurrency      worker threads, or null for the topic's or the factory's default
 * @param batchSize        messages per poll, or null for the topic's or the factory's default
 * @param autoStartup      whether the container starts with the application, or null for the factory's default
 * @param containerFactory the bean name of the container factory, or null for the default one
 * @param errorHandler     the bean name of the listener's error handler, or null for the factory's
 */
public record RmqListenerEndpoint(String id, String topic, String beanName, Object bean, Method method,
                                  ListenerSignature signature, @Nullable Integer concurrency,
                                  @Nullable Integer batchSize, @Nullable Boolean autoStartup,
                                  @Nullable String containerFactory, @Nullable String errorHandler) {

    public RmqListenerEndpoint {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(beanName, "beanName");
        Objects.requireNonNull(bean, "bean");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(signature, "signature");
    }

    /** What the payload is decoded into. */
    public Type payloadType() {
        return signature.payloadType();
    }

    /** {@code bean 'orders' method OrderListeners.close(Order)}, for error messages. */
    public String describe() {
        return describe(beanName, method);
    }

    static String describe(String beanName, Method method) {
        String parameters = Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", "));
        return "@RmqListener method " + ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "."
                + method.getName() + "(" + parameters + ") of bean '" + beanName + "'";
    }
}
