package dev.rmq.spring.autoconfigure;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqErrorHandler;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.listener.DefaultRmqListenerContainerFactory;
import dev.rmq.spring.listener.RmqListenerContainerFactory;
import dev.rmq.testsupport.RedisExtension;
import dev.rmq.embedded.RedisServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Spring Boot conventions the starter follows: connection details beans, checked topic keys, a start-up report
 * registered with Boot, the listener factory's configurer, per-listener error handlers and the application's
 * observation registry.
 */
@ExtendWith(RedisExtension.class)
class RmqBootConventionsTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final RedisServer redis;
    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class,
                    RmqZooKeeperAutoConfiguration.class, RmqAutoConfiguration.class));

    RmqBootConventionsTests(RedisServer redis) {
        this.redis = redis;
    }

    @Test
    void aMisspeltTopicSettingFailsStartUpNamingTheNearestValidOne() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=PRIORITY",
                "rmq.topics.orders.max-retry=3").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure())).contains("rmq.topics.orders.max-retry")
                    .contains("'orders'").contains("max-retries");
        });
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=PRIORITY",
                "rmq.topics.orders.backoff.initial-delay=1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure())).contains("backoff.initial");
        });
    }

    @Test
    void aRedisConnectionDetailsBeanWinsOverTheProperties() throws IOException {
        int closedPort = closedPort();
        contextRunner.withPropertyValues("rmq.redis.address=redis://127.0.0.1:" + closedPort,
                        "rmq.topics.orders.type=PRIORITY")
                .withBean(RmqRedisConnectionDetails.class, () -> () -> List.of(redis.address()))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(PropertiesRmqRedisConnectionDetails.class);
                    context.getBean(RmqProducer.class).send(OutgoingMessage.priority("orders", "o-1", 100).withKey("o-1"));
                    assertThat(context.getBean(org.redisson.api.RedissonClient.class).getKeys().count()).isPositive();
                });
    }

    @Test
    void withoutOneThePropertiesAreTheConnectionDetails() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.redis.database=3")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RmqRedisConnectionDetails.class);
                    RmqRedisConnectionDetails details = context.getBean(RmqRedisConnectionDetails.class);
                    assertThat(details).isInstanceOf(PropertiesRmqRedisConnectionDetails.class);
                    assertThat(details.mode()).isEqualTo(RmqRedisConnectionDetails.Mode.SINGLE);
                    assertThat(details.addresses()).containsExactly(redis.address());
                    assertThat(details.database()).isEqualTo(3);
                });
    }

    @Test
    void aZooKeeperConnectionDetailsBeanMakesTheCuratorClient() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            contextRunner.withPropertyValues("rmq.redis.address=" + redis.address())
                    .withBean(RmqZooKeeperConnectionDetails.class, () -> zookeeper::getConnectString)
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
                        CuratorFramework curator = context.getBean(CuratorFramework.class);
                        assertThat(curator.getZookeeperClient().getCurrentConnectionString())
                                .isEqualTo(zookeeper.getConnectString());
                        assertThat(curator.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                    });
        }
    }

    @Test
    void theStartUpReportIsRegisteredWithSpringBoot() {
        List<String> analyzers = SpringFactoriesLoader.loadFactoryNames(FailureAnalyzer.class,
                getClass().getClassLoader());
        assertThat(analyzers).contains(RmqStartupFailureAnalyzer.class.getName());
    }

    @Test
    void theConfigurerBuildsTheDefaultFactoryAndAnApplicationsOwnFactoryAlike() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=PRIORITY",
                        "rmq.listener.concurrency=3", "rmq.listener.batch-size=7")
                .withUserConfiguration(OwnFactory.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DefaultRmqListenerContainerFactory own = context.getBean("slowFactory",
                            DefaultRmqListenerContainerFactory.class);
                    DefaultRmqListenerContainerFactory standard = context.getBean(
                            RmqListenerContainerFactory.DEFAULT_BEAN_NAME, DefaultRmqListenerContainerFactory.class);
                    assertThat(standard.getDefaults().concurrency()).isEqualTo(3);
                    assertThat(standard.getDefaults().batchSize()).isEqualTo(7);
                    assertThat(own.getDefaults().batchSize()).isEqualTo(7);
                    assertThat(own.getDefaults().concurrency()).isEqualTo(1);
                    assertThat(own.getErrorHandler()).isSameAs(context.getBean(RmqErrorHandlerNames.DEFAULT));
                });
    }

    @Test
    void aListenerUsesTheErrorHandlerItNamesAndTheDefaultBuriesWhatRetryingCannotMend() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.listener.idle-poll=50ms",
                        "rmq.topics.invoices.type=PRIORITY", "rmq.topics.invoices.max-retries=5", "rmq.topics.invoices.slot-amount=1",
                        "rmq.topics.receipts.type=PRIORITY", "rmq.topics.receipts.max-retries=5", "rmq.topics.receipts.slot-amount=1",
                        "rmq.listener.not-retryable-exceptions=java.lang.IllegalStateException")
                .withUserConfiguration(FailingListeners.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RmqProducer producer = context.getBean(RmqProducer.class);
                    RmqDeadQueue dead = context.getBean(RmqDeadQueue.class);
                    producer.send(OutgoingMessage.priority("invoices", "i-1", 100).withKey("i-1"));
                    producer.send(OutgoingMessage.priority("receipts", "r-1", 100).withKey("r-1"));

                    await().atMost(WAIT).until(() -> dead.count("invoices") == 1 && dead.count("receipts") == 1);
                    FailingListeners listeners = context.getBean(FailingListeners.class);
                    // named handler: dead at the first failure with its own reason
                    assertThat(listeners.invoiceAttempts).hasSize(1);
                    assertThat(dead.list("invoices", 0, 0, 10)).extracting(DeadMessage::lastError)
                            .singleElement().asString().contains("invoices are never retried");
                    // default handler, told by rmq.listener.not-retryable-exceptions: dead without a retry
                    assertThat(listeners.receiptAttempts).hasSize(1);
                    assertThat(dead.list("receipts", 0, 0, 10)).extracting(DeadMessage::lastError)
                            .singleElement().asString().contains("not retryable").contains("IllegalStateException");
                });
    }

    @Test
    void aListenerNamingAnErrorHandlerThatIsNotABeanFailsStartUp() {
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.invoices.type=PRIORITY")
                .withUserConfiguration(UnknownErrorHandler.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context.getStartupFailure())).contains("errorHandler 'nowhere'");
                });
    }

    @Test
    void sendsAndDeliveriesAreObservedWithTheApplicationsRegistry() {
        List<String> observed = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                observed.add(context.getName() + " " + context.getContextualName());
            }
        });
        contextRunner.withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.listener.idle-poll=50ms",
                        "rmq.topics.invoices.type=PRIORITY", "rmq.topics.receipts.type=PRIORITY")
                .withBean(ObservationRegistry.class, () -> registry)
                .withUserConfiguration(FailingListeners.class)
                .run(context -> {
                    context.getBean(RmqProducer.class).send(OutgoingMessage.priority("invoices", "i-1", 100).withKey("i-1"));
                    await().atMost(WAIT).until(() -> observed.contains("rmq.listener invoices process"));
                    assertThat(observed).contains("rmq.producer invoices send");
                });
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String rootMessage(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFactory {

        @Bean
        DefaultRmqListenerContainerFactory slowFactory(
                dev.rmq.spring.listener.RmqListenerContainerFactoryConfigurer configurer) {
            DefaultRmqListenerContainerFactory factory = configurer.create();
            factory.setConcurrency(1);
            return factory;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingListeners {

        final List<String> invoiceAttempts = new CopyOnWriteArrayList<>();
        final List<String> receiptAttempts = new CopyOnWriteArrayList<>();

        @Bean
        RmqErrorHandler neverRetry() {
            return (message, error) -> ConsumeResult.dead("invoices are never retried: " + error.getMessage());
        }

        @Bean
        Object invoiceListener() {
            return new Object() {
                @RmqListener(topic = "invoices", errorHandler = "neverRetry")
                void on(String payload) {
                    invoiceAttempts.add(payload);
                    throw new IllegalArgumentException("bad invoice " + payload);
                }
            };
        }

        @Bean
        Object receiptListener() {
            return new Object() {
                @RmqListener(topic = "receipts")
                void on(String payload) {
                    receiptAttempts.add(payload);
                    throw new IllegalStateException("bad receipt " + payload);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownErrorHandler {

        @Bean
        Object listener() {
            return new Object() {
                @RmqListener(topic = "invoices", errorHandler = "nowhere")
                void on(String payload) {
                }
            };
        }
    }
}
