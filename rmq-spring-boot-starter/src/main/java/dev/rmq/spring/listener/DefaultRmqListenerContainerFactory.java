package dev.rmq.spring.listener;

import dev.rmq.ContainerBuilder;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Builds {@link RmqConsumerContainer}s on an {@link RmqClient}. Settings are chosen per value, the most
 * specific first: the annotation's, then the topic's ({@link TopicSettings}), then this factory's defaults.
 * Listener methods are invoked through a spring-messaging {@link MessageHandlerMethodFactory}.
 */
public class DefaultRmqListenerContainerFactory implements RmqListenerContainerFactory, BeanFactoryAware {

    private final RmqClient client;
    private final RmqSlotAssignmentFactory assignments;
    private ConsumerSettings defaults = ConsumerSettings.DEFAULTS;
    private Map<String, TopicSettings> topicSettings = Map.of();
    private boolean autoStartup = true;
    private MessageHandlerMethodFactory methodFactory = defaultMethodFactory();
    private RmqErrorHandler errorHandler = RmqErrorHandler.DEFAULT;
    private @Nullable BeanFactory beanFactory;
    private @Nullable Executor executor;

    /**
     * Per-topic overrides of the factory's defaults; null means "not set".
     *
     * @param concurrency worker threads
     * @param batchSize   messages per poll
     */
    public record TopicSettings(@Nullable Integer concurrency, @Nullable Integer batchSize) {
    }

    public DefaultRmqListenerContainerFactory(RmqClient client, RmqSlotAssignmentFactory assignments) {
        this.client = Objects.requireNonNull(client, "client");
        this.assignments = Objects.requireNonNull(assignments, "assignments");
    }

    /** Concurrency, batch size, idle poll and shutdown timeout of containers; rmq-core's defaults otherwise. */
    public void setDefaults(ConsumerSettings defaults) {
        this.defaults = Objects.requireNonNull(defaults, "defaults");
    }

    public void setTopicSettings(Map<String, TopicSettings> topicSettings) {
        this.topicSettings = Map.copyOf(topicSettings);
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /** Worker threads of each container, unless its listener or its topic says otherwise. */
    public void setConcurrency(int concurrency) {
        this.defaults = defaults.withConcurrency(concurrency);
    }

    /** Messages per poll, unless the listener or its topic says otherwise. */
    public void setBatchSize(int batchSize) {
        this.defaults = defaults.withBatchSize(batchSize);
    }

    /** What a listener's exception does to its message, unless the listener names an error handler of its own. */
    public void setErrorHandler(RmqErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /**
     * Runs the workers of the containers, and with them the listeners; each worker holds one of its threads while its
     * container runs. Null (the default) gives each worker a platform thread of its own.
     */
    public void setExecutor(@Nullable Executor executor) {
        this.executor = executor;
    }

    public @Nullable Executor getExecutor() {
        return executor;
    }

    public RmqErrorHandler getErrorHandler() {
        return errorHandler;
    }

    public ConsumerSettings getDefaults() {
        return defaults;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** How listener methods are invoked; the default resolves the payload, RmqMessage, @Header and @Headers. */
    public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory methodFactory) {
        this.methodFactory = Objects.requireNonNull(methodFactory, "methodFactory");
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public RmqConsumerContainer<?> createContainer(RmqListenerEndpoint endpoint) {
        TopicDefinition topic = client.topics().require(endpoint.topic());
        ConsumerSettings settings = settingsFor(endpoint);
        InvocableHandlerMethod method = methodFactory.createInvocableHandlerMethod(endpoint.bean(), endpoint.method());
        ListenerSignature signature = endpoint.signature();
        ContainerBuilder<Object> builder = client.container(topic.name(), signature.payloadType());
        switch (signature.shape()) {
            case SINGLE -> builder.handler(new ListenerMethodAdapter(method));
            case ASYNC -> builder.asyncHandler(new AsyncListenerMethodAdapter(method, signature.suspending()));
            case BATCH -> builder.batchHandler(new BatchListenerMethodAdapter(method, signature.messages()));
        }
        if (executor != null) {
            builder.executor(executor);
        }
        return builder
                .id(endpoint.id())
                .settings(settings)
                .assignment(() -> assignments.create(topic, endpoint.id()))
                .errorHandler(errorHandlerFor(endpoint))
                .build();
    }

    /** The listener's own error handler, by bean name, or this factory's. */
    private RmqErrorHandler errorHandlerFor(RmqListenerEndpoint endpoint) {
        if (endpoint.errorHandler() == null) {
            return errorHandler;
        }
        if (beanFactory == null) {
            throw new IllegalStateException(endpoint.describe() + " names errorHandler '" + endpoint.errorHandler()
                    + "', but this container factory is not a bean and cannot look it up");
        }
        try {
            return beanFactory.getBean(endpoint.errorHandler(), RmqErrorHandler.class);
        } catch (BeansException e) {
            throw new IllegalStateException(endpoint.describe() + " names errorHandler '" + endpoint.errorHandler()
                    + "', which is not an RmqErrorHandler bean: " + e.getMessage(), e);
        }
    }

    /** The settings a container of this endpoint gets. */
    public ConsumerSettings settingsFor(RmqListenerEndpoint endpoint) {
        TopicSettings topic = topicSettings.getOrDefault(endpoint.topic(), new TopicSettings(null, null));
        int concurrency = firstNonNull(endpoint.concurrency(), topic.concurrency(), defaults.concurrency());
        int batchSize = firstNonNull(endpoint.batchSize(), topic.batchSize(), defaults.batchSize());
        return defaults.withConcurrency(concurrency).withBatchSize(batchSize);
    }

    private static int firstNonNull(@Nullable Integer first, @Nullable Integer second, int otherwise) {
        return first != null ? first : second != null ? second : otherwise;
    }

    private static MessageHandlerMethodFactory defaultMethodFactory() {
        DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();
        factory.setCustomArgumentResolvers(List.of(new RmqArgumentResolver()));
        factory.afterPropertiesSet();
        return factory;
    }
}
