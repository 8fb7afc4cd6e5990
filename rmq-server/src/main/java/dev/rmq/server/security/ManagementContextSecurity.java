package dev.rmq.server.security;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The API-key filter in the actuator's own web server, which Spring Boot starts in a child context when
 * {@code management.server.port} differs from the server's: that server takes only the filters registered in its
 * own context, so without this one the actuator (metrics, the topics' state, their write operations) would answer
 * anyone who reaches its port.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
class ManagementContextSecurity {

    /** The server's own filter, from the parent context: one set of keys, one health path. */
    @Bean
    FilterRegistrationBean<ApiKeyFilter> managementApiKeyFilter(ApiKeyFilter filter) {
        FilterRegistrationBean<ApiKeyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setOrder(filter.getOrder());
        return registration;
    }
}
