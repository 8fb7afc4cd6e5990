package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.codec.JsonPayloadCodec;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.LocalSlotAssignment;
import dev.rmq.dead.DeadMessage;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.Durability;
import dev.rmq.producer.NotReplicatedException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.spring.listener.DefaultRmqListenerContainerFactory;
import dev.rmq.spring.listener.LocalSlotAssignmentFactory;
import dev.rmq.spring.listener.RmqListenerAnnotationBeanPostProcessor;
import dev.rmq.spring.listener.RmqListenerContainerFactory;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisExtension;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link RmqAutoConfiguration} creates, what it backs off from, and how {@code rmq.*} binds. */
@ExtendWith(RedisExtension.class)
class RmqAutoConfigurationTests {

    private final ApplicationContextRunner contextRunner;

    RmqAutoConfigurationTests(RedisServer redis) {
        contextRunner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class,
                        RmqZooKeeperAutoConfiguration.class, RmqAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=FIXED_TIME");
    }

    @Test
    void createsTheClientProducerDeadQueueAndListenerInfrastructure() {
        contextRunner.run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(RedissonClient.class)
                    .hasSingleBean(RmqClient.class)
                    .hasSingleBean(RmqProducer.class)
                    .hasSingleBean(RmqDeadQueue.class)
                    .hasSingleBean(RmqAdmin.class)
                    .hasSingleBean(PayloadCodec.class)
                    .hasSingleBean(RmqListenerEndpointRegistry.class)
                    .hasSingleBean(RmqListenerAnnotationBeanPostProcessor.class)
                    .hasBean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME);
            assertThat(context.getBean(RmqSlotAssignmentFactory.class)).isInstanceOf(LocalSlotAssignmentFactory.class);
            assertThat(context.getBean(RmqSlotAssignmentFactory.class).create(
                    context.getBean(RmqClient.class).topics().require("orders"), "c")).isInstanceOf(LocalSlotAssignment.class);
            assertThat(context.getBean(RmqProducer.class)).isSameAs(context.getBean(RmqClient.class).producer());
        });
    }

    @Test
    void durableSendsWaitForTheConfiguredReplicasAndFailWithoutThem() {
        // the test Redis has no replicas, so a send that needs one is written but never acknowledged as durable
        contextRunner.withPropertyValues("rmq.producer.durability.replicas=1", "rmq.producer.durability.timeout=200ms")
                .run(context -> {
                    RmqProducer producer = context.getBean(RmqProducer.class);
                    assertThat(producer.durability()).isEqualTo(Durability.replicas(1, Duration.ofMillis(200)));
                    assertThatThrownBy(() -> producer.send(OutgoingMessage.fixedTime("orders", "o-1",
                            java.time.Instant.now().plusSeconds(600)).withKey("o-1")))
                            .isInstanceOf(NotReplicatedException.class)
                            .hasMessageContaining("acknowledged by 0 of the 1 required replica(s)");
                });
    }

    @Test
    void doesNothingWithoutARedissonClient() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RmqAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RmqClient.class)
                        .doesNotHaveBean(RmqListenerEndpointRegistry.class));
    }

    @Test
    void backsOffFromTheApplicationsOwnBeans() {
        contextRunner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RmqProducer.class)).isSameAs(context.getBean("ownProducer"));
            assertThat(context.getBean(RmqDeadQueue.class)).isSameAs(context.getBean("ownDeadQueue"));
            assertThat(context.getBean(PayloadCodec.class)).isSameAs(context.getBean("ownCodec"));
            assertThat(context.getBean(RmqSlotAssignmentFactory.class)).isSameAs(context.getBean("ownAssignments"));
            assertThat(context.getBean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME))
                    .isSameAs(context.getBean("ownFactoryHolder", OwnBeans.Holder.class).factory);
            assertThat(context.getBean(RmqListenerEndpointRegistry.class)).isSameAs(context.getBean("ownRegistry"));
        });
    }

    @Test
    void backsOffFromTheApplicationsOwnClient() {
        contextRunner.withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RmqClient.class);
            assertThat(context.getBean(RmqClient.class)).isSameAs(context.getBean("ownClient"));
            assertThat(context.getBean(RmqClient.class).topics().contains("mine")).isTrue();
        });
    }

    @Test
    void bindsTopicsFromAMapWithCoreDefaults() {
        contextRunner.withPropertyValues("rmq.topics.price-change.type=RANGE_MERGE").run(context -> {
            TopicDefinition topic = context.getBean(RmqClient.class).topics().require("price-change");
            assertThat(topic).isEqualTo(TopicDefinition.builder("price-change", TopicType.RANGE_MERGE).build());
        });
    }

    @Test
    void bindsEveryTopicSetting() {
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.slot-amount=4",
                "rmq.topics.tasks.lease-timeout=45s", "rmq.topics.tasks.max-retries=3",
                "rmq.topics.tasks.backoff.initial=200ms", "rmq.topics.tasks.backoff.multiplier=1",
                "rmq.topics.tasks.backoff.max=200ms", "rmq.topics.tasks.backoff.jitter=0",
                "rmq.topics.tasks.dead-capacity=10").run(context -> {
            TopicDefinition topic = context.getBean(RmqClient.class).topics().require("tasks");
            assertThat(topic).isEqualTo(TopicDefinition.builder("tasks", TopicType.PRIORITY).slotAmount(4)
                    .leaseTimeout(Duration.ofSeconds(45)).maxRetries(3)
                    .backoff(BackoffPolicy.fixed(Duration.ofMillis(200))).deadCapacity(10).build());
        });
    }

    @Test
    void bindsEveryJobControl() {
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.ttl=90s",
                "rmq.topics.tasks.expiry=DEAD", "rmq.topics.tasks.max-backlog=5000",
                "rmq.topics.tasks.delivery=AT_MOST_ONCE", "rmq.topics.tasks.rate-limit=12.5",
                "rmq.topics.orders.late-tolerance=2s", "rmq.topics.orders.repeated-key=THROTTLE",
                "rmq.topics.orders.throttle-window=30s", "rmq.topics.pings.type=RANGE_MERGE",
                "rmq.topics.pings.repeated-key=keep-first").run(context -> {
            TopicDefinition tasks = context.getBean(RmqClient.class).topics().require("tasks");
            assertThat(tasks).isEqualTo(TopicDefinition.builder("tasks", TopicType.PRIORITY).ttl(Duration.ofSeconds(90))
                    .expiry(ExpiryAction.DEAD).maxBacklog(5000).delivery(DeliveryGuarantee.AT_MOST_ONCE).rateLimit(12.5)
                    .build());
            assertThat(context.getBean(RmqClient.class).topics().require("orders").lateTolerance())
                    .isEqualTo(Duration.ofSeconds(2));
            assertThat(context.getBean(RmqClient.class).topics().require("orders").repeatedKey())
                    .isEqualTo(RepeatedKey.throttle(Duration.ofSeconds(30)));
            assertThat(context.getBean(RmqClient.class).topics().require("pings").repeatedKey())
                    .isEqualTo(RepeatedKey.KEEP_FIRST);
        });
    }

    @Test
    void refusesABadJobControlNamingTheProperty() {
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.rate-limit=-1").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("rateLimit of topic 'tasks' must be 0 (no limit) or a number of messages per second"
                                + " up to 1000000, was -1.0"));
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.max-backlog=-5").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("maxBacklog of topic 'tasks' must be 0 (no cap) or positive, was -5"));
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.repeated-key=THROTTLE")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("THROTTLE needs its window"));
        contextRunner.withPropertyValues("rmq.topics.tasks.type=PRIORITY", "rmq.topics.tasks.repeated-key=DEBOUNCE")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("priority topic 'tasks'"));
    }

    @Test
    void bindsTopicsFromAListWithNames() {
        contextRunner.withPropertyValues("rmq.topics[0].name=alpha", "rmq.topics[0].type=PRIORITY",
                "rmq.topics[1].name=beta", "rmq.topics[1].type=RANGE_MERGE", "rmq.topics[1].slot-amount=2").run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            assertThat(client.topics().require("alpha").type()).isEqualTo(TopicType.PRIORITY);
            assertThat(client.topics().require("beta").slotAmount()).isEqualTo(2);
        });
    }

    @Test
    void addsTopicDefinitionBeansToTheConfiguredTopics() {
        contextRunner.withBean("extraTopic", TopicDefinition.class,
                () -> TopicDefinition.builder("extra", TopicType.PRIORITY).slotAmount(2).build()).run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            assertThat(client.topics().all()).extracting(TopicDefinition::name).containsExactly("orders", "extra");
        });
    }

    @Test
    void acceptsTheSameDefinitionFromPropertiesAndABean() {
        contextRunner.withPropertyValues("rmq.topics.orders.slot-amount=8").withBean("ordersTopic", TopicDefinition.class,
                () -> TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(8).build())
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void bindsTheKeyPrefixAndTheEmptyOneThatKeepsTheNamesWithoutAPrefix() {
        Instant due = Instant.now().plusSeconds(60);
        contextRunner.withPropertyValues("rmq.key-prefix=acme").run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            SendReceipt receipt = client.producer().send(OutgoingMessage.fixedTime("orders", "x", due));
            assertThat(client.redisson().getKeys().countExists("acme:{orders_" + receipt.slot() + "}")).isEqualTo(1);
        });
        contextRunner.withPropertyValues("rmq.key-prefix=").run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            SendReceipt receipt = client.producer().send(OutgoingMessage.fixedTime("orders", "y", due));
            assertThat(client.redisson().getKeys().countExists("orders_" + receipt.slot())).isEqualTo(1);
        });
        contextRunner.withPropertyValues("rmq.key-prefix=a{b").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("rmq.key-prefix 'a{b' is invalid"));
    }

    @Test
    void aSendBufferBelowItsFloorStopsTheStartNamingTheProperty() {
        contextRunner.withPropertyValues("rmq.producer.send-buffer=512B").run(context -> assertThat(context)
                .getFailure().rootCause().hasMessage("rmq.producer.send-buffer must be at least 1024B, was 512B"));
        contextRunner.withPropertyValues("rmq.producer.send-buffer=2MB").run(context ->
                assertThat(context.getBean(RmqProperties.class).producer().sendBuffer().toBytes()).isEqualTo(2L << 20));
    }

    @Test
    void bindsNamespacePayloadLimitAndListenerDefaults() {
        contextRunner.withPropertyValues("rmq.namespace=shop", "rmq.max-payload-size=2KB", "rmq.listener.concurrency=3",
                "rmq.listener.batch-size=10", "rmq.listener.idle-poll=250ms", "rmq.listener.shutdown-timeout=5s",
                "rmq.topics.orders.concurrency=5").run(context -> {
            RmqClient client = context.getBean(RmqClient.class);
            Instant due = Instant.now().plusSeconds(60);
            assertThatThrownBy(() -> client.producer().send(OutgoingMessage.fixedTime("orders", new byte[2048], due)))
                    .isInstanceOf(PayloadTooLargeException.class).hasMessageContaining("the limit is 2048 bytes");
            SendReceipt receipt = client.producer().send(OutgoingMessage.fixedTime("orders", "x", due));
            assertThat(client.redisson().getKeys().countExists("rmq:{shop:orders_" + receipt.slot() + "}")).isEqualTo(1);
            RmqProperties properties = context.getBean(RmqProperties.class);
            assertThat(properties.listener().toConsumerSettings()).isEqualTo(
                    new ConsumerSettings(3, 10, Duration.ofMillis(250), Duration.ofSeconds(5), 100));
            assertThat(context.getBean(DefaultRmqListenerContainerFactory.class)).isNotNull();
        });
    }

    @Test
    void propertyDefaultsAreTheCoreDefaults() {
        contextRunner.run(context -> {
            RmqProperties properties = context.getBean(RmqProperties.class);
            assertThat(properties.listener().toConsumerSettings()).isEqualTo(ConsumerSettings.DEFAULTS);
            assertThat(properties.maxPayloadSize().toBytes()).isEqualTo(RmqClient.DEFAULT_MAX_PAYLOAD_BYTES);
            assertThat(properties.topics().get("orders").toDefinition("orders"))
                    .isEqualTo(TopicDefinition.builder("orders", TopicType.FIXED_TIME).build());
        });
    }

    @Test
    void encodesPayloadsWithTheApplicationsJsonMapper() {
        contextRunner.withBean(JsonMapper.class,
                () -> JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build())
                .run(context -> {
                    PayloadCodec codec = context.getBean(PayloadCodec.class);
                    assertThat(codec).isInstanceOf(JsonPayloadCodec.class);
                    assertThat(new String(codec.encode(new Price("A-1", 12)), StandardCharsets.UTF_8))
                            .isEqualTo("{\"price_cents\":12,\"sku\":\"A-1\"}");
                });
    }

    record Price(String sku, long priceCents) {
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {

        static final class Holder {
            final DefaultRmqListenerContainerFactory factory;

            Holder(DefaultRmqListenerContainerFactory factory) {
                this.factory = factory;
            }
        }

        @Bean
        RmqProducer ownProducer(RmqClient client) {
            return client.producer().withDurability(Durability.MASTER_ONLY);
        }

        @Bean
        RmqDeadQueue ownDeadQueue(RmqClient client) {
            return new RmqDeadQueue() {
                @Override
                public List<DeadMessage> list(String topic, int slot, long offset, int limit) {
                    return List.of();
                }

                @Override
                public long count(String topic, int slot) {
                    return 0;
                }

                @Override
                public long count(String topic) {
                    return 0;
                }

                @Override
                public boolean requeue(String topic, int slot, String key) {
                    return false;
                }

                @Override
                public long requeueAll(String topic) {
                    return 0;
                }

                @Override
                public boolean delete(String topic, int slot, String key) {
                    return false;
                }

                @Override
                public long purge(String topic) {
                    return 0;
                }
            };
        }

        @Bean
        PayloadCodec ownCodec() {
            return new JsonPayloadCodec();
        }

        @Bean
        RmqSlotAssignmentFactory ownAssignments() {
            return (topic, id) -> new LocalSlotAssignment();
        }

        @Bean(RmqListenerContainerFactory.DEFAULT_BEAN_NAME)
        DefaultRmqListenerContainerFactory ownFactory(RmqClient client, RmqSlotAssignmentFactory assignments) {
            return new DefaultRmqListenerContainerFactory(client, assignments);
        }

        @Bean
        Holder ownFactoryHolder(DefaultRmqListenerContainerFactory factory) {
            return new Holder(factory);
        }

        @Bean
        RmqListenerEndpointRegistry ownRegistry() {
            return new RmqListenerEndpointRegistry(Duration.ofSeconds(3));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {

        @Bean
        RmqClient ownClient(RedissonClient redisson) {
            return RmqClient.builder(redisson).topic(TopicDefinition.builder("mine", TopicType.PRIORITY).build()).build();
        }
    }
}
