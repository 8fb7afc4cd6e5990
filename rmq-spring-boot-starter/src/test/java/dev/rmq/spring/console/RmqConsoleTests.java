package dev.rmq.spring.console;

import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.spring.RedisAndZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.annotation.DirtiesContext;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console on a real web server, without Spring Security and with its writes turned on: its pages read what
 * Redis holds, its controls act, and a write that does not come from its own pages is refused.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = ConsoleTestBase.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "rmq.topics.jobs.type=PRIORITY",
                "rmq.topics.jobs.slot-amount=2",
                "rmq.topics.timers.type=FIXED_TIME",
                "rmq.topics.timers.slot-amount=2",
                "rmq.dashboard.enabled=true",
                "rmq.dashboard.write-operations-enabled=true",
                "rmq.dashboard.refresh=1s"})
@DirtiesContext
class RmqConsoleTests extends ConsoleTestBase {

    private ConsoleHttp console;

    @BeforeEach
    void connect() {
        RedisAndZooKeeper.redis().command("FLUSHALL");
        console = console("/rmq");
    }

    @Test
    void theOverviewListsEveryTopicUnderAStrictPolicyWithRelativeLinksOnly() {
        HttpResponse<String> bare = console.get(URI.create("http://127.0.0.1:" + port + "/rmq"));
        assertThat(bare.statusCode()).isEqualTo(302);
        assertThat(bare.headers().firstValue("Location")).hasValue("rmq/");

        client.producer().send(OutgoingMessage.priority("jobs", "{\"n\":1}", 50).withKey("a"));
        HttpResponse<String> page = console.get("");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleHandler.POLICY);
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.body()).contains("<tr data-topic=\"jobs\">", "<tr data-topic=\"timers\">")
                .doesNotContainPattern("<script(?![^>]*\\bsrc=)")
                .doesNotContain("style=", "http://", "https://", "href=\"/");
        // every link and asset resolves against the page's own address, so under any prefix too
        long weight = page.body().length();
        for (String link : ConsoleHttp.links(page.body())) {
            HttpResponse<String> linked = console.get(console.uri("").resolve(link));
            assertThat(linked.statusCode()).as(link).isEqualTo(200);
            if (link.startsWith("assets/")) {
                weight += linked.body().length();
                assertThat(linked.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/");
            }
        }
        assertThat(weight).as("the overview's first load, in bytes").isLessThan(300 * 1024);
    }

    @Test
    void aTopicPageShowsItsSlotsItsChartsAndTheNextMessagesWithRelativeLinks() {
        for (int i = 0; i < 3; i++) {
            client.producer().send(OutgoingMessage.priority("jobs", "job " + i, 100 + i).withKey("job-" + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !console.get("topics/jobs").body().contains("no samples"));
        String page = console.get("topics/jobs").body();
        assertThat(page).contains("<table class=\"grid\" id=\"slots\">", "<svg", "job-0", "job-2")
                .contains("href=\"../assets/console.css\"");
        assertThat(page.indexOf("job-2")).as("the highest priority first").isLessThan(page.indexOf("job-0"));
        for (String link : ConsoleHttp.links(page)) {
            assertThat(console.get(console.uri("topics/jobs").resolve(link)).statusCode()).as(link).isEqualTo(200);
        }
        // this application's sends, as its meters count them, between two samples
        await().atMost(Duration.ofSeconds(10)).until(() -> console.get("topics/jobs").body()
                .matches("(?s).*Sent per second, this application <span class=\"muted\">now \\d+, peak [1-9].*"));
        String fragment = console.get("topics/jobs", "X-Rmq-Fragment", "1").body();
        assertThat(fragment).contains("job-1").doesNotContain("<html", "<head");
        assertThat(console.get("topics/nope").statusCode()).isEqualTo(404);
        String two = console.get("topics/jobs?next=2").body();
        assertThat(two).contains("Next 2,", "job-2", "job-1").doesNotContain("job-0");
    }

    @Test
    void aMessageSentWithAnotherSlotBasisIsFoundAndCancelledByIt() {
        client.producer().send(OutgoingMessage.fixedTime("timers", "x", Instant.now().plus(Duration.ofHours(1)))
                .withKey("invoice-7").withSlotBasis("customer-9"));
        assertThat(console.get("lookup?topic=timers&key=invoice-7&basis=customer-9").body())
                .contains("invoice-7 <span class=\"state\">waiting", "data-basis=\"customer-9\"");
        HttpResponse<String> done = console.act("{\"action\":\"cancel\",\"topic\":\"timers\",\"key\":\"invoice-7\","
                + "\"basis\":\"customer-9\"}");
        assertThat(done.body()).contains("cancelled");
        assertThat(client.producer().get(MessageRef.of("timers", "invoice-7").withSlotBasis("customer-9"))).isEmpty();
    }

    @Test
    void aMessageIsFoundByItsKeyAndRescheduled(CapturedOutput output) {
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        client.producer().send(OutgoingMessage.fixedTime("timers", "{\"order\":42,\"items\":[1,2]}", due)
                .withKey("order-42").withHeader("tenant", "acme"));
        String page = console.get("lookup?topic=timers&key=order-42").body();
        assertThat(page).contains("waiting", "tenant", "acme", "&quot;order&quot; : 42,\n  &quot;items&quot;", "data-action=\"reschedule\"");
        assertThat(console.get("lookup?topic=timers&key=missing").body()).contains("Redis holds no message of key");

        Instant later = due.plus(Duration.ofHours(1));
        HttpResponse<String> done = console.act("{\"action\":\"reschedule\",\"topic\":\"timers\",\"key\":\"order-42\","
                + "\"at\":\"" + later.toString().replace("Z", "") + "\"}");
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(done.body()).contains("rescheduled to");
        assertThat((long) client.producer().get(MessageRef.of("timers", "order-42")).orElseThrow().score())
                .isEqualTo(later.toEpochMilli());
        assertThat(output).contains("asked to reschedule timers key 'order-42': rescheduled to");
    }

    @Test
    void aDeadMessageIsListedFilteredAndRequeued() {
        client.producer().send(OutgoingMessage.priority("jobs", "poison", 100).withKey("poison-1"));
        client.producer().send(OutgoingMessage.priority("jobs", "bad", 100).withKey("other-1"));
        try (RmqPuller<String> puller = client.puller(String.class).topics("jobs").build()) {
            puller.start();
            List<PulledMessage<String>> taken = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                taken.addAll(puller.poll(2, Duration.ofMillis(200)));
                return taken.size() == 2;
            });
            for (PulledMessage<String> message : taken) {
                message.dead(message.key().startsWith("poison") ? "cannot parse the poison" : "other trouble");
            }
        }
        String all = console.get("topics/jobs/dead").body();
        assertThat(all).contains("poison-1", "other-1", "cannot parse the poison", "data-action=\"purge\"");
        String filtered = console.get("topics/jobs/dead?filter=PARSE").body();
        assertThat(filtered).contains("poison-1").doesNotContain("other-1");

        int slot = client.topics().require("jobs").slotOf("poison-1");
        HttpResponse<String> done = console.act("{\"action\":\"requeue\",\"topic\":\"jobs\",\"key\":\"poison-1\","
                + "\"slot\":" + slot + "}");
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(client.producer().get(MessageRef.of("jobs", "poison-1")).orElseThrow().state())
                .isEqualTo(MessageState.WAITING);
        assertThat(console.get("topics/jobs/dead").body()).doesNotContain("poison-1").contains("other-1");
    }

    @Test
    void pauseAndResumeActForEveryConsumerAndAreAudited(CapturedOutput output) {
        assertThat(console.act("{\"action\":\"pause\",\"topic\":\"jobs\"}").body()).contains("paused");
        assertThat(client.admin().pauseState("jobs").paused()).isTrue();
        assertThat(console.get("").body()).contains("paused");
        assertThat(console.act("{\"action\":\"resume\",\"topic\":\"jobs\"}").body()).contains("running");
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();
        assertThat(output).contains("anonymous at 127.0.0.1 asked to pause jobs: the topic is paused");
    }

    @Test
    void aWriteThatDoesNotComeFromTheConsolesOwnPagesIsRefusedAndChangesNothing() {
        String pause = "{\"action\":\"pause\",\"topic\":\"jobs\"}";
        // a cross-site form: no header of the console's, form-encoded
        assertThat(console.post("action=pause&topic=jobs", "Content-Type", "application/x-www-form-urlencoded",
                "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
        // a script on another site that got the header through: the browser says where it came from
        assertThat(console.post(pause, "Content-Type", "application/json", ConsoleAccess.WRITE_HEADER, "1",
                "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
        HttpResponse<String> foreign = console.post(pause, "Content-Type", "application/json",
                ConsoleAccess.WRITE_HEADER, "1", "Origin", "http://evil.example");
        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(foreign.body()).contains("http://evil.example");
        assertThat(client.admin().pauseState("jobs").paused()).isFalse();

        assertThat(console.post(pause, "Content-Type", "application/json", ConsoleAccess.WRITE_HEADER, "1",
                "Origin", "http://127.0.0.1:" + port).statusCode()).as("its own origin").isEqualTo(200);
        assertThat(console.act("{\"action\":\"resume\",\"topic\":\"jobs\"}").statusCode()).isEqualTo(200);
        assertThat(console.act("{\"action\":\"explode\",\"topic\":\"jobs\"}").body()).contains("unknown action");
        assertThat(console.act("{\"action\":\"requeue\",\"topic\":\"jobs\",\"key\":\"k\"}").body())
                .contains("needs the dead message's slot");
    }

    /** A gateway in front of the application that serves the console under a prefix of its own, as a proxy does. */
    @Test
    void theConsoleWorksUnderAProxysPrefix() throws Exception {
        try (PrefixProxy proxy = PrefixProxy.start("/ops", "http://127.0.0.1:" + port)) {
            ConsoleHttp behind = new ConsoleHttp(proxy.base() + "/ops/rmq/");
            HttpResponse<String> bare = behind.get(URI.create(proxy.base() + "/ops/rmq"));
            assertThat(bare.statusCode()).isEqualTo(302);
            assertThat(URI.create(proxy.base() + "/ops/rmq").resolve(bare.headers().firstValue("Location")
                    .orElseThrow()).getPath()).isEqualTo("/ops/rmq/");
            client.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey("through-proxy"));
            for (String page : List.of("", "topics/jobs", "topics/jobs/dead", "lookup?topic=jobs&key=through-proxy")) {
                String html = behind.get(page).body();
                for (String link : ConsoleHttp.links(html)) {
                    URI target = behind.uri(page).resolve(link);
                    assertThat(target.getPath()).as(link + " on " + page).startsWith("/ops/rmq/");
                    assertThat(behind.get(target).statusCode()).as(link + " on " + page).isEqualTo(200);
                }
            }
            assertThat(behind.act("{\"action\":\"pause\",\"topic\":\"jobs\"}").statusCode()).isEqualTo(200);
            assertThat(behind.act("{\"action\":\"resume\",\"topic\":\"jobs\"}").statusCode()).isEqualTo(200);
        }
    }

    /** However many pages load within a refresh, the console reads each topic's counts from Redis once. */
    @Test
    void pagesLoadedWithinARefreshShareOneReadOfTheCounts() {
        console.get("");
        long before = scriptCalls();
        for (int i = 0; i < 20; i++) {
            assertThat(console.get("").statusCode()).isEqualTo(200);
        }
        long slots = client.topics().all().stream().mapToLong(topic -> topic.slotAmount()).sum();
        // one read of every slot's counts, and at most one more should the refresh have run out during the loads
        assertThat(scriptCalls() - before).as("script calls for 20 overviews").isLessThanOrEqualTo(2 * slots);
    }

    /** The script calls Redis has run, by FCALL or EVALSHA. */
    private static long scriptCalls() {
        String stats = String.valueOf(RedisAndZooKeeper.redis().command("INFO", "commandstats"));
        long calls = 0;
        java.util.regex.Matcher matcher = java.util.regex.Pattern
                .compile("cmdstat_(?:fcall|fcall_ro|evalsha|evalsha_ro|eval):calls=(\\d+)").matcher(stats);
        while (matcher.find()) {
            calls += Long.parseLong(matcher.group(1));
        }
        return calls;
    }
}
