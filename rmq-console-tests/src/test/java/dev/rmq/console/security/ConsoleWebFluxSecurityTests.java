package dev.rmq.console.security;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.web.server.SecurityWebFilterChain;

/** On a reactive (WebFlux) server, behind Spring Security's web filters and its reactive CSRF token. */
@SpringBootTest(classes = ConsoleWebFluxSecurityTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "spring.main.web-application-type=reactive", SecuredConsoleTests.PROPERTIES_TOPIC,
                SecuredConsoleTests.PROPERTIES_CONSOLE})
class ConsoleWebFluxSecurityTests extends SecuredConsoleTests {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        SecurityWebFilterChain security(ServerHttpSecurity http) {
            return http.authorizeExchange(exchanges -> exchanges
                            .pathMatchers(HttpMethod.POST, "/rmq/actions").hasRole("QUEUE_OPERATOR")
                            .pathMatchers("/rmq", "/rmq/**").hasAnyRole("QUEUE_VIEWER", "QUEUE_OPERATOR")
                            .anyExchange().denyAll())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(SecuredConsoleTests.users());
        }
    }
}
