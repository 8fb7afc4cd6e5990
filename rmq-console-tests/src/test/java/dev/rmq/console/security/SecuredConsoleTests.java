package dev.rmq.console.security;

import dev.rmq.RmqClient;
import dev.rmq.test.EmbeddedRmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console inside an application's Spring Security, configured as docs/console.md shows: one role reads, another
 * acts. The application's rules decide who reaches which page and who may post, and Spring Security's CSRF token
 * guards every write. A subclass gives the web stack and its security configuration.
 */
@EmbeddedRmq
@ExtendWith(OutputCaptureExtension.class)
abstract class SecuredConsoleTests {

    static final String PROPERTIES_TOPIC = "rmq.topics.jobs.type=PRIORITY";
    static final String PROPERTIES_CONSOLE = "rmq.dashboard.enabled=true";
    private static final String PAUSE = "{\"action\":\"pause\",\"topic\":\"jobs\"}";

    @LocalServerPort
    int port;

    @Autowired
    RmqClient client;

    /** One user who may read the console, and one who may act. */
    static List<UserDetails> users() {
        return List.of(User.withUsername("viewer").password("{noop}viewer-secret").roles("QUEUE_VIEWER").build(),
                User.withUsername("operator").password("{noop}operator-secret").roles("QUEUE_OPERATOR").build());
    }

    @Test
    void theApplicationsRulesDecideWhoSeesWhichPage() throws Exception {
        assertThat(new ConsoleSession(port, "anyone", null).page("").statusCode()).isEqualTo(401);
        assertThat(new ConsoleSession(port, "viewer", "wrong").page("").statusCode()).isEqualTo(401);

        ConsoleSession viewer = new ConsoleSession(port, "viewer", "viewer-secret");
        HttpResponse<String> overview = viewer.page("");
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body()).contains("<tr data-topic=\"jobs\">").doesNotContain("read-only");
        assertThat(overview.headers().firstValue("Content-Security-Policy").orElseThrow())
                .startsWith("default-src 'none'");
        assertThat(viewer.page("topics/jobs").body()).contains("<table class=\"grid\" id=\"slots\">");
        assertThat(viewer.page("assets/console.js").body()).contains("X-Rmq-Console");
        assertThat(viewer.page("topics/nope").statusCode()).isEqualTo(404);
        assertThat(viewer.csrfHeader()).as("the page carries Spring Security's CSRF token").isNotEmpty();
        assertThat(viewer.csrfToken()).isNotEmpty();
    }

    @Test
    void onlyTheOperatorActsAndOnlyWithTheTokenOfItsPage(CapturedOutput output) throws Exception {
        ConsoleSession viewer = new ConsoleSession(port, "viewer", "viewer-secret");
        viewer.page("topics/jobs");
        assertThat(viewer.act(PAUSE, true).statusCode()).as("a role that reads").isEqualTo(403);

        ConsoleSession operator = new ConsoleSession(port, "operator", "operator-secret");
        operator.page("topics/jobs");
        assertThat(operator.act(PAUSE, false).statusCode()).as("no CSRF token").isEqualTo(403);
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();

        HttpResponse<String> done = operator.act(PAUSE, true);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(client.admin().pauseState("jobs").paused()).isTrue();
        assertThat(output).contains("operator asked to pause jobs: the topic is paused");
        assertThat(operator.act("{\"action\":\"resume\",\"topic\":\"jobs\"}", true).statusCode()).isEqualTo(200);
    }

    @Test
    void aConnectionAnswersOnAfterARefusedWrite() throws Exception {
        // the refusal is written before the write's body is read, and the next request comes on the same connection
        ConsoleSession operator = new ConsoleSession(port, "operator", "operator-secret");
        operator.page("topics/jobs");
        for (int i = 0; i < 200; i++) {
            assertThat(operator.act(PAUSE, false).statusCode()).as("no CSRF token, write %d", i).isEqualTo(403);
            assertThat(operator.page("assets/console.js").statusCode()).as("the request after write %d", i)
                    .isEqualTo(200);
        }
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();
    }
}
