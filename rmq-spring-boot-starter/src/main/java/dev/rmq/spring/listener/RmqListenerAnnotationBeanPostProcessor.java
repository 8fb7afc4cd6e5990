package dev.rmq.spring.listener;

import dev.rmq.spring.annotation.RmqListener;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finds {@link RmqListener} methods on beans, resolves the annotation's placeholders, checks the method's
 * signature, and stages an {@link RmqListenerEndpoint} for each with the {@link RmqListenerEndpointRegistrar}.
 * A bad listener fails the creation of its bean, with a message naming the bean and the method.
 */
public class RmqListenerAnnotationBeanPostProcessor
        implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware, Ordered {

    private final RmqListenerEndpointRegistrar registrar = new RmqListenerEndpointRegistrar();
    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> idCounters = new ConcurrentHashMap<>();
    // Both set by the container through setBeanFactory, before it hands this post-processor any bean.
    @SuppressWarnings("NullAway.Init")
    private ConfigurableListableBeanFactory beanFactory;
    @SuppressWarnings("NullAway.Init")
    private BeanExpressionContext expressionContext;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory configurable)) {
            throw new IllegalStateException("@RmqListener needs a ConfigurableListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = configurable;
        this.expressionContext = new BeanExpressionContext(configurable, null);
        registrar.setBeanFactory(beanFactory);
    }

    @Override
    public int getOrder() {
        // After every other post-processor, so that the method is looked up on the final (proxied) bean.
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (nonAnnotatedClasses.contains(targetClass) || !AnnotationUtils.isCandidateClass(targetClass, RmqListener.class)) {
            return bean;
        }
        Map<Method, RmqListener> listeners = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<RmqListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m, RmqListener.class));
        if (listeners.isEmpty()) {
            nonAnnotatedClasses.add(targetClass);
            return bean;
        }
        listeners.forEach((method, annotation) ->
                registrar.registerEndpoint(endpoint(bean, beanName, targetClass, method, annotation)));
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        nonAnnotatedClasses.clear();
        registrar.registerAllEndpoints(beanFactory.containsBean(RmqListenerEndpointRegistry.BEAN_NAME)
                ? beanFactory.getBean(RmqListenerEndpointRegistry.BEAN_NAME, RmqListenerEndpointRegistry.class)
                : beanFactory.getBean(RmqListenerEndpointRegistry.class));
    }

    private RmqListenerEndpoint endpoint(Object bean, String beanName, Class<?> targetClass, Method method,
                                         RmqListener annotation) {
        String where = RmqListenerEndpoint.describe(beanName, method);
        try {
            ListenerSignature signature = ListenerMethodSignature.of(targetClass, method);
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            String topic = text(annotation.topic());
            if (topic == null) {
                throw new IllegalArgumentException("its topic is empty");
            }
            String id = text(annotation.id());
            if (id == null) {
                id = topic + "#" + idCounters.computeIfAbsent(topic, t -> new AtomicInteger()).getAndIncrement();
            }
            return new RmqListenerEndpoint(id, topic, beanName, bean, invocable, signature,
                    number(annotation.concurrency(), "concurrency"), number(annotation.batchSize(), "batchSize"),
                    flag(annotation.autoStartup()), text(annotation.containerFactory()), text(annotation.errorHandler()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new BeanInitializationException(where + " cannot be a listener: " + e.getMessage(), e);
        }
    }

    /** The attribute with placeholders and expressions resolved; null when empty. */
    private @Nullable String text(String attribute) {
        Object value = resolve(attribute);
        String text = value == null ? null : value.toString().trim();
        return text == null || text.isEmpty() ? null : text;
    }

    private @Nullable Object resolve(String attribute) {
        if (attribute == null || attribute.isEmpty()) {
            return null;
        }
        String resolved = beanFactory.resolveEmbeddedValue(attribute);
        BeanExpressionResolver expressions = beanFactory.getBeanExpressionResolver();
        return expressions != null ? expressions.evaluate(resolved, expressionContext) : resolved;
    }

    private @Nullable Integer number(String attribute, String name) {
        Object value = resolve(attribute);
        if (value == null || value instanceof String s && s.isBlank()) {
            return null;
        }
        if (value instanceof Number n) {
            return n.intValue();
        }
        try {
            return Integer.valueOf(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("its " + name + " '" + attribute + "' resolves to '" + value
                    + "', which is not a whole number");
        }
    }

    private @Nullable Boolean flag(String attribute) {
        Object value = resolve(attribute);
        if (value == null || value instanceof String s && s.isBlank()) {
            return null;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        String text = value.toString().trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.valueOf(text);
        }
        throw new IllegalArgumentException("its autoStartup '" + attribute + "' resolves to '" + value
                + "', which is neither true nor false");
    }
}
