package dev.rmq.spring.listener;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqErrorHandler;
import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Applies the application's listener settings ({@code rmq.listener.*}, each topic's {@code concurrency} and
 * {@code batch-size}, the {@code rmqErrorHandler} bean, the threads the listeners run on) to a container factory, as Spring Boot's configurers do for
 * Kafka and Rabbit: a second factory starts from the same defaults and changes only what it must.
 *
 * <pre>{@code
 * @Bean
 * DefaultRmqListenerContainerFactory reports(RmqListenerContainerFactoryConfigurer configurer) {
 *     DefaultRmqListenerContainerFactory factory = configurer.create();
 *     factory.setConcurrency(8);
 *     return factory;
 * }
 * }</pre>
 */
public final class RmqListenerContainerFactoryConfigurer {

    private final RmqClient client;
    private final RmqSlotAssignmentFactory assignments;
    private final ConsumerSettings defaults;
    private final Map<String, DefaultRmqListenerContainerFactory.TopicSettings> topics;
    private final boolean autoStartup;
    private final RmqErrorHandler errorHandler;
    private final @Nullable Executor executor;

    public RmqListenerContainerFactoryConfigurer(RmqClient client, RmqSlotAssignmentFactory assignments,
                                                 ConsumerSettings defaults,
                                                 Map<String, DefaultRmqListenerContainerFactory.TopicSettings> topics,
                                                 boolean autoStartup, RmqErrorHandler errorHandler) {
        this(client, assignments, defaults, topics, autoStartup, errorHandler, null);
    }

    /**
     * @param executor runs the containers' workers, and with them the listeners; null for a platform thread per
     *                 worker
     */
    public RmqListenerContainerFactoryConfigurer(RmqClient client, RmqSlotAssignmentFactory assignments,
                                                 ConsumerSettings defaults,
                                                 Map<String, DefaultRmqListenerContainerFactory.TopicSettings> topics,
                                                 boolean autoStartup, RmqErrorHandler errorHandler,
                                                 @Nullable Executor executor) {
        this.executor = executor;
        this.client = Objects.requireNonNull(client, "client");
        this.assignments = Objects.requireNonNull(assignments, "assignments");
        this.defaults = Objects.requireNonNull(defaults, "defaults");
        this.topics = Map.copyOf(topics);
        this.autoStartup = autoStartup;
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** A new factory with the application's settings. */
    public DefaultRmqListenerContainerFactory create() {
        DefaultRmqListenerContainerFactory factory = new DefaultRmqListenerContainerFactory(client, assignments);
        configure(factory);
        return factory;
    }

    /** Applies the application's settings to {@code factory}. */
    public void configure(DefaultRmqListenerContainerFactory factory) {
        factory.setDefaults(defaults);
        factory.setTopicSettings(topics);
        factory.setAutoStartup(autoStartup);
        factory.setErrorHandler(errorHandler);
        factory.setExecutor(executor);
    }
}
