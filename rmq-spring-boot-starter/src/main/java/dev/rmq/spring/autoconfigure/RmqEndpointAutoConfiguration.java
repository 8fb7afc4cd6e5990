package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.spring.config.RmqEndpoint;
import dev.rmq.spring.config.RmqListenerEndpointRegistry;
import dev.rmq.spring.config.RmqSlotAssignmentFactory;
import dev.rmq.spring.config.WritableRmqEndpoint;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rmq} actuator endpoint, when it is enabled and exposed. Its dead-queue write operations
 * exist only with {@code rmq.endpoint.write-operations-enabled=true}; otherwise the endpoint has no
 * write or delete operation at all.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqCoordinationAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, RmqClient.class})
@ConditionalOnBean(RmqClient.class)
@ConditionalOnAvailableEndpoint(RmqEndpoint.class)
public final class RmqEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RmqEndpoint rmqEndpoint(RmqClient client, ObjectProvider<RmqListenerEndpointRegistry> registry,
                            ObjectProvider<RmqCoordinator> coordinator,
                            ObjectProvider<RmqSlotAssignmentFactory> assignments, RmqProperties properties) {
        RmqSlotAssignmentFactory assignment = assignments.getIfUnique();
        String mode = assignment != null ? assignment.mode() : "unknown";
        return properties.endpoint().writeOperationsEnabled()
                ? new WritableRmqEndpoint(client, registry.getIfUnique(), coordinator.getIfUnique(), mode)
                : new RmqEndpoint(client, registry.getIfUnique(), coordinator.getIfUnique(), mode);
    }
}
