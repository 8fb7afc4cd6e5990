package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.config.DefaultRmqListenerContainerFactory;
import dev.rmq.spring.config.LocalSlotAssignmentFactory;
import dev.rmq.spring.config.RmqListenerAnnotationBeanPostProcessor;
import dev.rmq.spring.config.RmqListenerContainerFactory;
import dev.rmq.spring.config.RmqListenerEndpointRegistry;
import dev.rmq.spring.config.RmqSlotAssignmentFactory;
import dev.rmq.topic.TopicDefinition;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

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
                        PayloadCodec codec, ObjectProvider<RmqMetrics> metrics) {
        return RmqClient.builder(redisson)
                .topics(ConfiguredTopics.collect(properties.topics(), beans.getBeansOfType(TopicDefinition.class)))
                .namespace(properties.namespace())
                .codec(codec)
                .maxPayloadBytes(Math.toIntExact(properties.maxPayloadSize().toBytes()))
                .metrics(metrics.getIfUnique(() -> RmqMetrics.NONE))
                .outageThreshold(properties.redis().outageThreshold())
                .zone(properties.zone())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    RmqProducer rmqProducer(RmqClient client, RmqProperties properties) {
        RmqProperties.Durability durability = properties.producer().durability();
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

    @Bean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME)
    @ConditionalOnMissingBean(name = RmqListenerContainerFactory.DEFAULT_BEAN_NAME)
    DefaultRmqListenerContainerFactory rmqListenerContainerFactory(RmqClient client,
                                                                   RmqSlotAssignmentFactory assignments,
                                                                   RmqProperties properties) {
        DefaultRmqListenerContainerFactory factory = new DefaultRmqListenerContainerFactory(client, assignments);
        factory.setDefaults(properties.listener().toConsumerSettings());
        factory.setAutoStartup(properties.listener().autoStartup());
        Map<String, DefaultRmqListenerContainerFactory.TopicSettings> topics = new LinkedHashMap<>();
        properties.topics().forEach((key, topic) -> topics.put(topic.toDefinition(key).name(),
                new DefaultRmqListenerContainerFactory.TopicSettings(topic.concurrency(), topic.batchSize())));
        factory.setTopicSettings(topics);
        return factory;
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
