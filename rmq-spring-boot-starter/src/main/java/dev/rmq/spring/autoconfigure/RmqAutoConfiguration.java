package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.journal.MessageJournal;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendHold;
import dev.rmq.spring.listener.DefaultRmqListenerContainerFactory;
import dev.rmq.spring.listener.LocalSlotAssignmentFactory;
import dev.rmq.spring.listener.RmqListenerAnnotationBeanPostProcessor;
import dev.rmq.spring.listener.RmqListenerContainerFactory;
import dev.rmq.spring.listener.RmqListenerContainerFactoryConfigurer;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.topic.TopicDefinition;
import io.micrometer.observation.ObservationRegistry;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * rmq on Spring Boot: the {@link RmqClient} over the configured topics, the autowirable {@link RmqProducer}
 * {@link RmqDeadQueue} and {@link RmqAdmin}, and the {@code @RmqListener} machinery (post-processor, container factory,
 * registry and slot assignment). Every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = {RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class},
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(RmqClient.class)
@ConditionalOnBean(RedissonClient.class)
@EnableConfigurationProperties(RmqProperties.class)
public final class RmqAutoConfiguration {

    private static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

    /** Deterministic JSON on the application's Jackson mapper, so listeners read what the application writes. */
    @Bean
    @ConditionalOnMissingBean
    PayloadCodec rmqPayloadCodec(ObjectProvider<JsonMapper> jsonMapper) {
        JsonMapper mapper = jsonMapper.getIfUnique();
        return mapper != null ? new JsonPayloadCodec(mapper) : new JsonPayloadCodec();
    }

    @Bean
    @ConditionalOnMissingBean
    RmqClient rmqClient(RedissonClient redisson, RmqProperties properties, ListableBeanFactory beans,
                        PayloadCodec codec, ObjectProvider<RmqMetrics> metrics, ObjectProvider<MessageJournal> journal,
                        ObjectProvider<SendHold> sendHold, ObjectProvider<PayloadKeyRing> keyRing,
                        ObjectProvider<PayloadUpcaster> upcasters, Environment environment) {
        TopicKeys.check(environment);
        RmqClient.Builder client = RmqClient.builder(redisson)
                .topics(ConfiguredTopics.collect(properties.topics(), beans.getBeansOfType(TopicDefinition.class)))
                .namespace(properties.namespace())
                .keyPrefix(properties.keyPrefix())
                .codec(codec)
                .maxPayloadBytes(Math.toIntExact(properties.maxPayloadSize().toBytes()))
                .sendBufferBytes(properties.producer().sendBuffer().toBytes())
                .metrics(metrics.getIfUnique(() -> RmqMetrics.NONE))
                .outageThreshold(properties.redis().outageThreshold())
                .scriptMode(properties.redis().scriptMode())
                .zone(properties.zone());
        List<MessageJournal> journals = journal.orderedStream().toList();
        if (journals.size() > 1) {
            throw new IllegalStateException("rmq takes one MessageJournal bean, and the application has "
                    + journals.size() + " (" + journals.stream().map(j -> j.getClass().getSimpleName()).toList()
                    + "): remove one, or set rmq.journal.enabled=false to keep your own");
        }
        journals.forEach(client::journal);
        sendHold.ifUnique(client::sendHold);
        // a ring the application builds itself (from a secret store) wins over the configured keys
        Optional.ofNullable(keyRing.getIfUnique()).or(() -> properties.payload().ring()).ifPresent(client::keyRing);
        upcasters.orderedStream().forEach(client::upcaster);
        if (ClassUtils.isPresent(OBSERVATION_REGISTRY, beans.getClass().getClassLoader())) {
            Observing.registry(beans).ifPresent(client::observationRegistry);
        }
        return client.build();
    }

    private static final String OBSERVATION_REGISTRY = "io.micrometer.observation.ObservationRegistry";

    /** The application's ObservationRegistry, read only when Micrometer Observation is on the class path. */
    private static final class Observing {

        static Optional<ObservationRegistry> registry(ListableBeanFactory beans) {
            return Optional.ofNullable(beans.getBeanProvider(ObservationRegistry.class).getIfUnique());
        }
    }

    @Bean
    @ConditionalOnMissingBean
    RmqProducer rmqProducer(RmqClient client, RmqProperties properties) {
        RmqProducerProperties.Durability durability = properties.producer().durability();
        return durability.replicas() == 0 ? client.producer() : client.producer().withDurability(durability.toCore());
    }

    @Bean
    @ConditionalOnMissingBean
    RmqDeadQueue rmqDeadQueue(RmqClient client) {
        return client.deadQueue();
    }

    @Bean
    @ConditionalOnMissingBean
    RmqAdmin rmqAdmin(RmqClient client) {
        return client.admin();
    }

    /** Without ZooKeeper; with it, {@link RmqCoordinationAutoConfiguration} has defined the assignment already. */
    @Bean
    @ConditionalOnMissingBean
    RmqSlotAssignmentFactory rmqSlotAssignmentFactory() {
        return new LocalSlotAssignmentFactory();
    }

    /**
     * What every listener's exceptions do to their messages, unless the listener names another: retry after the
     * backoff, except the exceptions of {@code rmq.listener.not-retryable-exceptions}, which go to the dead queue.
     */
    @Bean(RmqErrorHandlerNames.DEFAULT)
    @ConditionalOnMissingBean(name = RmqErrorHandlerNames.DEFAULT)
    RmqErrorHandler rmqErrorHandler(RmqProperties properties) {
        return RmqErrorHandler.retryingExcept(properties.listener().notRetryableExceptions());
    }

    @Bean
    @ConditionalOnMissingBean
    RmqListenerContainerFactoryConfigurer rmqListenerContainerFactoryConfigurer(RmqClient client,
            RmqSlotAssignmentFactory assignments, RmqProperties properties, BeanFactory beans, Environment environment) {
        Map<String, DefaultRmqListenerContainerFactory.TopicSettings> topics = new LinkedHashMap<>();
        properties.topics().forEach((key, topic) -> topics.put(topic.toDefinition(key).name(),
                new DefaultRmqListenerContainerFactory.TopicSettings(topic.concurrency(), topic.batchSize())));
        return new RmqListenerContainerFactoryConfigurer(client, assignments, properties.listener().toConsumerSettings(),
                topics, properties.listener().autoStartup(),
                beans.getBean(RmqErrorHandlerNames.DEFAULT, RmqErrorHandler.class),
                ListenerThreads.choose(properties.listener().threads(), environment, beans));
    }

    @Bean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME)
    @ConditionalOnMissingBean(name = RmqListenerContainerFactory.DEFAULT_BEAN_NAME)
    DefaultRmqListenerContainerFactory rmqListenerContainerFactory(RmqListenerContainerFactoryConfigurer configurer) {
        return configurer.create();
    }

    /** Stops within spring.lifecycle.timeout-per-shutdown-phase, read here so that it works without its auto-configuration. */
    @Bean(RmqListenerEndpointRegistry.BEAN_NAME)
    @ConditionalOnMissingBean
    RmqListenerEndpointRegistry rmqListenerEndpointRegistry(Environment environment) {
        Duration phase = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_SHUTDOWN_PHASE);
        return new RmqListenerEndpointRegistry(phase);
    }

    /** Static, as every post-processor bean should be, so that it does not pull this configuration in early. */
    @Bean
    @ConditionalOnMissingBean
    static RmqListenerAnnotationBeanPostProcessor rmqListenerAnnotationBeanPostProcessor() {
        return new RmqListenerAnnotationBeanPostProcessor();
    }
}
