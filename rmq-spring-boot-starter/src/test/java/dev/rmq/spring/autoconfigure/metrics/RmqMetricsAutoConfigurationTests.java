package dev.rmq.spring.autoconfigure.metrics;

import dev.rmq.RmqClient;
import dev.rmq.metrics.MicrometerRmqMetrics;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqProperties;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisExtension;
import dev.rmq.topic.TopicDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The metrics auto-configuration applies only with a MeterRegistry, and backs off from the application's RmqMetrics. */
@ExtendWith(RedisExtension.class)
class RmqMetricsAutoConfigurationTests {

    private final ApplicationContextRunner contextRunner;

    RmqMetricsAutoConfigurationTests(RedisServer redis) {
        contextRunner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class,
                        RmqMetricsAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.jobs.type=PRIORITY",
                        "rmq.topics.jobs.slot-amount=2");
    }

    @Test
    void reportsToTheMeterRegistryAndRegistersTheGauges() {
        contextRunner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(MicrometerRmqMetrics.class).hasSingleBean(RmqMeterBinder.class);
            RmqClient client = context.getBean(RmqClient.class);

            client.producer().send(OutgoingMessage.priority("jobs", "x", 100));
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("rmq.send.messages").tags("topic", "jobs", "result", "success").counter().count())
                    .isEqualTo(1);
            assertThat(meters.get("rmq.backlog").tags("topic", "jobs", "type", "priority").gauge().value()).isEqualTo(1);
            assertThat(meters.get("rmq.inflight").tag("topic", "jobs").gauge().value()).isZero();
            assertThat(meters.get("rmq.dead.size").tag("topic", "jobs").gauge().value()).isZero();
            assertThat(meters.get("rmq.slots.owned").tag("topic", "jobs").gauge().value()).isZero();
            // an outage is counted by who saw it: the producer, or a topic's consumers
            assertThat(meters.getMeters()).filteredOn(m -> m.getId().getName().startsWith("rmq."))
                    .allSatisfy(m -> assertThat(m.getId().getTags()).extracting(Tag::getKey)
                            .isSubsetOf(m.getId().getName().startsWith("rmq.redis.outage")
                                    ? List.of("who", "topic") : List.of("topic", "type", "result")));
        });
    }

    @Test
    void theOldestDueMessagesAgeIsAGaugeOfEachTimeTypedTopic() {
        contextRunner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
                .withPropertyValues("rmq.topics.prices.type=RANGE_MERGE", "rmq.topics.prices.slot-amount=2",
                        "rmq.metrics.size-cache-ttl=1ms")
                .run(context -> {
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.find("rmq.oldest.due.age").tag("topic", "jobs").gauge())
                            .as("a priority topic's messages carry no send time").isNull();
                    assertThat(meters.get("rmq.oldest.due.age").tag("topic", "prices").gauge().value()).isZero();

                    context.getBean(RmqClient.class).producer().send(
                            OutgoingMessage.rangeMerge("prices", "p", Duration.ofMillis(10)).withKey("p"));
                    await().atMost(Duration.ofSeconds(5)).until(() -> meters.get("rmq.oldest.due.age")
                            .tag("topic", "prices").gauge().value() >= 0.5);
                });
    }

    @Test
    void doesNothingWithoutAMeterRegistry() {
        contextRunner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(MicrometerRmqMetrics.class).doesNotHaveBean(RmqMeterBinder.class);
            RmqClient client = context.getBean(RmqClient.class);
            assertThat(client.producer().send(OutgoingMessage.priority("jobs", "x", 100).withKey("without-registry"))
                    .topic()).isEqualTo("jobs");
        });
    }

    @Test
    void backsOffFromTheApplicationsOwnMetrics() {
        List<String> sentTo = new CopyOnWriteArrayList<>();
        RmqMetrics own = new RmqMetrics() {
            @Override
            public void sent(TopicDefinition topic, int messages, int merged, long nanos, Throwable error) {
                sentTo.add(topic.name());
            }
        };
        contextRunner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
                .withBean("ownMetrics", RmqMetrics.class, () -> own).run(context -> {
                    assertThat(context).doesNotHaveBean(MicrometerRmqMetrics.class);
                    context.getBean(RmqClient.class).producer().send(OutgoingMessage.priority("jobs", "x", 100));
                    assertThat(sentTo).containsExactly("jobs");
                });
    }

    @Test
    void backsOffFromTheApplicationsOwnMeterBinder() {
        contextRunner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
                .withUserConfiguration(OwnBinder.class).run(context -> {
                    assertThat(context).hasSingleBean(RmqMeterBinder.class);
                    assertThat(context.getBean(RmqMeterBinder.class)).isSameAs(context.getBean("ownBinder"));
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBinder {
        @Bean
        RmqMeterBinder ownBinder(RmqClient client, RmqListenerEndpointRegistry registry) {
            return new RmqMeterBinder(client, registry, Duration.ofSeconds(1));
        }
    }

    @Test
    void bindsTheSizeCacheTimeToLive() {
        contextRunner.withPropertyValues("rmq.metrics.size-cache-ttl=250ms").run(context -> assertThat(
                context.getBean(RmqProperties.class).metrics().sizeCacheTtl())
                .isEqualTo(Duration.ofMillis(250)));
    }
}
