package dev.rmq.server.security;

import dev.rmq.server.api.problem.ProblemJson;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The API keys and the filter that asks for them; Spring Boot registers the filter for every path. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiKeyProperties.class)
class SecurityConfiguration {

    @Bean
    ApiKeys apiKeys(ApiKeyProperties properties) {
        return new ApiKeys(properties);
    }

    @Bean
    ApiKeyFilter apiKeyFilter(ApiKeys keys, ProblemJson problems, Environment environment) {
        String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
        String health = environment.getProperty("management.endpoints.web.path-mapping.health", "health");
        String console = environment.getProperty("rmq.dashboard.enabled", Boolean.class, false)
                ? environment.getProperty("rmq.dashboard.path", "/rmq") : null;
        return new ApiKeyFilter(keys, problems, (base.endsWith("/") ? base : base + "/") + health, console);
    }
}
