package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.spring.actuate.RmqEndpointWriteFilter;
import dev.rmq.spring.actuate.RmqSchedulesEndpoint;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The {@code rmqschedules} actuator endpoint, when it is available. Its writes follow Spring Boot's endpoint access
 * control ({@code management.endpoint.rmqschedules.access}, read-only by default), as the {@code rmq} endpoint's do.
 */
@AutoConfiguration(after = RmqAutoConfiguration.class,
        afterName = "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration")
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, RmqClient.class})
@ConditionalOnBean(RmqClient.class)
@ConditionalOnAvailableEndpoint(RmqSchedulesEndpoint.class)
public final class RmqSchedulesEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RmqSchedulesEndpoint rmqSchedulesEndpoint(RmqClient client) {
        return new RmqSchedulesEndpoint(client);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(OncePerRequestFilter.class)
    static class ServletWrites {

        @Bean
        @ConditionalOnMissingBean(name = "rmqSchedulesEndpointWriteFilter")
        RmqEndpointWriteFilter rmqSchedulesEndpointWriteFilter(ObjectProvider<PathMappedEndpoints> endpoints,
                                                               ObjectProvider<EndpointAccessResolver> access) {
            return RmqEndpointAutoConfiguration.writeFilter(RmqSchedulesEndpoint.ID, "pause, resume, trigger and remove",
                    endpoints, access);
        }
    }
}
