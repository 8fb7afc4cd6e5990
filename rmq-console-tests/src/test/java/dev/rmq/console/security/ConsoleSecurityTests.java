package dev.rmq.console.security;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/** On a servlet server, behind Spring Security's filter chain. */
@SpringBootTest(classes = ConsoleSecurityTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=servlet", SecuredConsoleTests.PROPERTIES_TOPIC,
                SecuredConsoleTests.PROPERTIES_CONSOLE})
class ConsoleSecurityTests extends SecuredConsoleTests {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        SecurityFilterChain security(HttpSecurity http) {
            return http.authorizeHttpRequests(requests -> requests
                            .requestMatchers(HttpMethod.POST, "/rmq/actions").hasRole("QUEUE_OPERATOR")
                            .requestMatchers("/rmq", "/rmq/**").hasAnyRole("QUEUE_VIEWER", "QUEUE_OPERATOR")
                            // where a refusal is rendered
                            .requestMatchers("/error").permitAll()
                            .anyRequest().denyAll())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(SecuredConsoleTests.users());
        }
    }
}
