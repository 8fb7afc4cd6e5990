package dev.rmq.console.security;

import dev.rmq.RmqClient;
import dev.rmq.test.EmbeddedRmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console inside an application's Spring Security, configured as docs/console.md shows: one role reads, another
 * acts. The application's rules decide who reaches which page and who may post, and Spring Security's CSRF token
 * guards every write.
 */
@SpringBootTest(classes = ConsoleSecurityTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"rmq.topics.jobs.type=PRIORITY", "rmq.dashboard.enabled=true"})
@EmbeddedRmq
@ExtendWith(OutputCaptureExtension.class)
class ConsoleSecurityTests {

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
            return new InMemoryUserDetailsManager(
                    User.withUsername("viewer").password("{noop}viewer-secret").roles("QUEUE_VIEWER").build(),
                    User.withUsername("operator").password("{noop}operator-secret").roles("QUEUE_OPERATOR").build());
        }
    }

    private static final Pattern META = Pattern.compile("<meta name=\"rmq-csrf-(header|token)\" content=\"([^\"]*)\">");
    private static final String PAUSE = "{\"action\":\"pause\",\"topic\":\"jobs\"}";

    @LocalServerPort
    int port;

    @Autowired
    RmqClient client;

    /** A browser of one user: its session cookie kept, its credentials sent with every request. */
    private final class Session {
        private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        private final String authorization;
        private String csrfHeader = "";
        private String csrfToken = "";

        Session(String user, String password) {
            this.authorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                    .getBytes(StandardCharsets.UTF_8));
        }

        HttpResponse<String> page(String relative) throws IOException, InterruptedException {
            HttpResponse<String> response = send(HttpRequest.newBuilder(uri(relative)).GET());
            Matcher meta = META.matcher(response.body());
            while (meta.find()) {
                if (meta.group(1).equals("header")) {
                    csrfHeader = meta.group(2);
                } else {
                    csrfToken = meta.group(2);
                }
            }
            return response;
        }

        /** A write as the console's script sends it, with the CSRF token its page carried when {@code withToken}. */
        HttpResponse<String> act(String json, boolean withToken) throws IOException, InterruptedException {
            List<String> headers = new ArrayList<>(List.of("Content-Type", "application/json", "X-Rmq-Console", "1",
                    "Sec-Fetch-Site", "same-origin"));
            if (withToken) {
                headers.addAll(List.of(csrfHeader, csrfToken));
            }
            return send(HttpRequest.newBuilder(uri("actions")).POST(HttpRequest.BodyPublishers.ofString(json))
                    .headers(headers.toArray(String[]::new)));
        }

        private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
            return http.send(request.header("Authorization", authorization).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    private URI uri(String relative) {
        return URI.create("http://127.0.0.1:" + port + "/rmq/").resolve(relative);
    }

    @Test
    void theApplicationsRulesDecideWhoSeesTheConsole() throws Exception {
        HttpResponse<String> anonymous = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri("")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);

        Session viewer = new Session("viewer", "viewer-secret");
        HttpResponse<String> page = viewer.page("topics/jobs");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<h1>jobs").doesNotContain("read-only");
        assertThat(viewer.csrfHeader).as("the page carries Spring Security's CSRF token").isNotEmpty();
        assertThat(viewer.csrfToken).isNotEmpty();
        assertThat(new Session("viewer", "wrong").page("").statusCode()).isEqualTo(401);
    }

    @Test
    void onlyTheOperatorActsAndOnlyWithTheTokenOfItsPage(CapturedOutput output) throws Exception {
        Session viewer = new Session("viewer", "viewer-secret");
        viewer.page("topics/jobs");
        assertThat(viewer.act(PAUSE, true).statusCode()).as("a role that reads").isEqualTo(403);

        Session operator = new Session("operator", "operator-secret");
        operator.page("topics/jobs");
        assertThat(operator.act(PAUSE, false).statusCode()).as("no CSRF token").isEqualTo(403);
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();

        HttpResponse<String> done = operator.act(PAUSE, true);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(client.admin().pauseState("jobs").paused()).isTrue();
        assertThat(output).contains("operator asked to pause jobs: the topic is paused");
        assertThat(operator.act("{\"action\":\"resume\",\"topic\":\"jobs\"}", true).statusCode()).isEqualTo(200);
    }
}
