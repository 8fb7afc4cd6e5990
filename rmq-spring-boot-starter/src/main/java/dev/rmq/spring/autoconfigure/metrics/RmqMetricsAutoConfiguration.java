package dev.rmq.spring.autoconfigure.metrics;

import dev.rmq.RmqClient;
import dev.rmq.metrics.MicrometerRmqMetrics;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqProperties;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of rmq, when the application has a {@link MeterRegistry}: the
 * {@link MicrometerRmqMetrics} that the {@link RmqClient} reports sends, consumes, merges, retries, dead
 * messages and lateness to, and the size and ownership gauges of {@link RmqMeterBinder}.
 */
@AutoConfiguration(after = RmqAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, RmqClient.class})
@ConditionalOnBean({MeterRegistry.class, RmqClient.class})
public final class RmqMetricsAutoConfiguration {

    /** Picked up by the RmqClient through an ObjectProvider, so it may be defined after the client's bean. */
    @Bean
    @ConditionalOnMissingBean(RmqMetrics.class)
    MicrometerRmqMetrics rmqMetrics(MeterRegistry meterRegistry) {
        return new MicrometerRmqMetrics(meterRegistry);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RmqListenerEndpointRegistry.class)
    RmqMeterBinder rmqMeterBinder(RmqClient client, RmqListenerEndpointRegistry registry, RmqProperties properties) {
        return new RmqMeterBinder(client, registry, properties.metrics().sizeCacheTtl());
    }
}
