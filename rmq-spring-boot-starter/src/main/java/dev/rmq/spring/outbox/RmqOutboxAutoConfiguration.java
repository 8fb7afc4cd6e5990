package dev.rmq.spring.outbox;

import dev.rmq.RmqClient;
import dev.rmq.outbox.jdbc.JdbcOutbox;
import dev.rmq.outbox.jdbc.OutboxListener;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;

/**
 * The transactional outbox, with {@code rmq.outbox.enabled=true}, rmq-outbox-jdbc and spring-jdbc on the class path,
 * on the application's one DataSource: the {@link RmqOutbox} bean, its relay, and its meters.
 */
@AutoConfiguration(after = RmqAutoConfiguration.class,
        afterName = {"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration"})
@ConditionalOnClass({JdbcOutbox.class, DataSourceUtils.class})
@ConditionalOnProperty(prefix = "rmq.outbox", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(RmqOutboxProperties.class)
public final class RmqOutboxAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    JdbcOutbox rmqJdbcOutbox(ObjectProvider<DataSource> dataSource, RmqClient client, RmqOutboxProperties properties,
                             ObjectProvider<OutboxListener> listener) {
        JdbcOutbox.Builder outbox = JdbcOutbox.builder(requireOne(dataSource), client);
        PropertyMapper map = PropertyMapper.get();
        map.from(properties.batchSize()).to(outbox::batchSize);
        map.from(properties.pollInterval()).to(outbox::pollInterval);
        map.from(properties.migrate()).to(outbox::migrate);
        List<OutboxListener> listeners = listener.orderedStream().toList();
        if (!listeners.isEmpty()) {
            // the meters' own and the application's, each told of everything
            outbox.listener(OutboxListener.all(listeners));
        }
        return outbox.build();
    }

    @Bean
    @ConditionalOnMissingBean
    RmqOutbox rmqOutbox(JdbcOutbox outbox, ObjectProvider<DataSource> dataSource) {
        return new RmqOutbox(outbox, requireOne(dataSource));
    }

    @Bean
    @ConditionalOnProperty(prefix = "rmq.outbox", name = "relay", havingValue = "true", matchIfMissing = true)
    OutboxRelayLifecycle rmqOutboxRelay(JdbcOutbox outbox, ObjectProvider<CuratorFramework> curator,
                                        RmqProperties properties) {
        return new OutboxRelayLifecycle(outbox, curator.getIfUnique(), properties.zookeeper().root());
    }

    private static DataSource requireOne(ObjectProvider<DataSource> dataSource) {
        DataSource source = dataSource.getIfUnique();
        if (source == null) {
            throw new IllegalStateException("rmq.outbox.enabled=true needs one DataSource (PostgreSQL or"
                    + " MySQL/MariaDB), and the application has " + (dataSource.stream().findAny().isPresent()
                    ? "several; mark one @Primary" : "none; set spring.datasource.url or define a DataSource bean"));
        }
        return source;
    }

    /** The read-only {@code rmqoutbox} actuator endpoint, when the actuator is there and the endpoint exposed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
    @ConditionalOnAvailableEndpoint(RmqOutboxEndpoint.class)
    static final class Actuator {

        @Bean
        @ConditionalOnMissingBean
        RmqOutboxEndpoint rmqOutboxEndpoint(JdbcOutbox outbox) {
            return new RmqOutboxEndpoint(outbox);
        }
    }

    /** The outbox's size, age and relay as meters, when Micrometer is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static final class Meters {

        /**
         * The relay's lag and refusals, per topic, in the application's registry: looked up when the relay first
         * reports, since the registry may be defined after the outbox.
         */
        @Bean
        OutboxListener rmqOutboxListener(ObjectProvider<MeterRegistry> registry) {
            return new OutboxListener() {
                @Override
                public void relayed(String topic, Duration lag) {
                    registry.ifUnique(meters -> Timer.builder("rmq.outbox.lag").tag("topic", topic)
                            .description("from the commit that wrote a send to the outbox until Redis took it")
                            .publishPercentileHistogram().register(meters).record(lag));
                }

                @Override
                public void refused(String topic, String key, String reason) {
                    registry.ifUnique(meters -> Counter.builder("rmq.outbox.refusals").tag("topic", topic)
                            .description("outbox sends Redis refused; each stays and is tried again")
                            .register(meters).increment());
                }
            };
        }

        @Bean
        MeterBinder rmqOutboxMeters(JdbcOutbox outbox) {
            return registry -> {
                Gauge.builder("rmq.outbox.size", outbox, o -> o.stats().rows())
                        .description("sends waiting in the outbox table").register(registry);
                Gauge.builder("rmq.outbox.refused", outbox, o -> o.stats().refused())
                        .description("sends in the outbox that Redis refused, waiting for another try")
                        .register(registry);
                Gauge.builder("rmq.outbox.age", outbox, o -> o.stats().oldestAge().toNanos() / 1e9)
                        .baseUnit("seconds").description("how long the oldest send in the outbox has waited")
                        .register(registry);
                FunctionCounter.builder("rmq.outbox.relayed", outbox, o -> o.stats().relayed())
                        .description("sends the relay moved to Redis").register(registry);
            };
        }
    }
}
