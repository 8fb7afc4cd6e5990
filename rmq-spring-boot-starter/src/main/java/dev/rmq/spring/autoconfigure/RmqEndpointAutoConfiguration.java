package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointWriteFilter;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.filter.OncePerRequestFilter;

import java.util.function.BooleanSupplier;

/**
 * The {@code rmq} actuator endpoint, when it is available. Its write operations follow Spring Boot's endpoint access
 * control ({@code management.endpoint.rmq.access}, read-only by default); in a servlet application, a write that the
 * access refuses is answered with a problem detail that says how to allow it.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqCoordinationAutoConfiguration.class},
        afterName = "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration")
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, RmqClient.class})
@ConditionalOnBean(RmqClient.class)
@ConditionalOnAvailableEndpoint(RmqEndpoint.class)
public final class RmqEndpointAutoConfiguration {

    /** The switch of rmq's own that Spring Boot's access control replaced. */
    static final String OLD_SWITCH = "rmq.endpoint.write-operations-enabled";

    @Bean
    @ConditionalOnMissingBean
    RmqEndpoint rmqEndpoint(RmqClient client, ObjectProvider<RmqListenerEndpointRegistry> registry,
                            ObjectProvider<RmqCoordinator> coordinator,
                            ObjectProvider<RmqSlotAssignmentFactory> assignments,
                            ObjectProvider<EndpointAccessResolver> access, Environment environment) {
        if (environment.containsProperty(OLD_SWITCH)) {
            throw new IllegalStateException(OLD_SWITCH + " is no longer read: the rmq endpoint's writes follow Spring"
                    + " Boot's endpoint access control. Remove it, and set management.endpoint.rmq.access=UNRESTRICTED"
                    + " to allow the writes (read-only is the default)");
        }
        RmqSlotAssignmentFactory assignment = assignments.getIfUnique();
        String mode = assignment != null ? assignment.mode() : "unknown";
        return new RmqEndpoint(client, registry.getIfUnique(), coordinator.getIfUnique(), mode,
                writesAllowed(access.getIfUnique(), RmqEndpoint.ID));
    }

    /** Whether an endpoint's access, as Spring Boot resolves it, lets writes through. */
    static BooleanSupplier writesAllowed(@Nullable EndpointAccessResolver access, String endpointId) {
        return () -> access != null
                && access.accessFor(EndpointId.of(endpointId), Access.READ_ONLY) == Access.UNRESTRICTED;
    }

    /** The filter that explains a refused write to one of rmq's endpoints, found at its mapped path. */
    static RmqEndpointWriteFilter writeFilter(String endpointId, String writes,
                                              ObjectProvider<PathMappedEndpoints> endpoints,
                                              ObjectProvider<EndpointAccessResolver> access) {
        return new RmqEndpointWriteFilter(endpointId, writes, () -> {
            PathMappedEndpoints mapped = endpoints.getIfUnique();
            return mapped == null ? null : mapped.getPath(EndpointId.of(endpointId));
        }, writesAllowed(access.getIfUnique(), endpointId));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(OncePerRequestFilter.class)
    static class ServletWrites {

        @Bean
        @ConditionalOnMissingBean(name = "rmqEndpointWriteFilter")
        RmqEndpointWriteFilter rmqEndpointWriteFilter(ObjectProvider<PathMappedEndpoints> endpoints,
                                                      ObjectProvider<EndpointAccessResolver> access) {
            return writeFilter(RmqEndpoint.ID, "pause, resume, clear, requeue, delete and purge", endpoints, access);
        }
    }
}
