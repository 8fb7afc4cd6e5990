package dev.rmq.samples.console;

import dev.rmq.RmqClient;
import dev.rmq.producer.MessageRef;
import dev.rmq.samples.RmqSamplesApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console of the running sample in a real browser: it sees what the sample's own HTTP API does, and its controls
 * act. Each page is saved as a screenshot under {@code target/console-screenshots}.
 */
@SpringBootTest(classes = RmqSamplesApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"samples.task-work=20ms", "rmq.dashboard.refresh=1s"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String OVERVIEW_CELL = "tr[data-topic='%s'] td:nth-child(%d)";
    private static final int DUE_NOW = 4;
    private static final int LATER = 5;

    @LocalServerPort
    int port;

    @Autowired
    RmqClient client;

    @Autowired
    Environment environment;

    private final HttpClient http = HttpClient.newHttpClient();
    private Browser browser;
    private String orderId;

    @BeforeAll
    void startTheBrowser() throws IOException {
        browser = Browser.start();
    }

    @AfterAll
    void stopTheBrowser() throws IOException {
        if (browser != null) {
            browser.close();
        }
    }

    private String console(String page) {
        return "http://127.0.0.1:" + port + "/rmq/" + page;
    }

    /** A POST to the sample's own HTTP API, as its README's curl lines send them. */
    private String post(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return response.body();
    }

    private String cell(String topic, int column) {
        return browser.text(OVERVIEW_CELL.formatted(topic, column));
    }

    @Test
    @Order(1)
    void theOverviewShowsTheSamplesThreeTopics() throws IOException {
        browser.open(console(""));
        List<String> topics = browser.each("#topics tbody tr", row -> row.getAttribute("data-topic"));
        assertThat(topics).containsExactlyInAnyOrder("price-change", "merchant-tasks", "order-timeout");
    }

    @Test
    @Order(2)
    void aSendThroughTheSamplesApiChangesTheCountsWithoutAReload() throws Exception {
        post("/prices/sku-42/burst?count=10");
        post("/merchant-tasks/demo");
        browser.open(console(""));
        browser.driver().executeScript("window.rmqSamePage = 'yes'");
        long later = Long.parseLong(cell("order-timeout", LATER));
        orderId = JSON.readTree(post("/orders?payWithin=1h")).path("id").asString();
        browser.until(driver -> Long.parseLong(cell("order-timeout", LATER)) == later + 1);
        assertThat(browser.driver().executeScript("return window.rmqSamePage")).as("the same page, refreshed in place")
                .isEqualTo("yes");
        browser.screenshot("overview");
    }

    @Test
    @Order(3)
    void aTopicPageDrawsItsCharts() throws IOException {
        browser.open(console("topics/order-timeout"));
        browser.until(driver -> driver.findElements(By.cssSelector("figure.chart svg polyline")).size() == 8);
        assertThat(browser.all("#slots tbody tr")).hasSize(16);
        // under ZooKeeper each slot shows the fencing token of its owner's hold
        assertThat(browser.each("#slots td.token", WebElement::getText)).hasSize(16)
                .allSatisfy(token -> assertThat(token).contains("/"));
        browser.screenshot("topic");
    }

    @Test
    @Order(4)
    void aMessageIsLookedUpByKeyAndRescheduled() throws IOException {
        browser.open(console("lookup?topic=order-timeout&key=" + orderId));
        assertThat(browser.text("#message h2")).contains(orderId, "waiting");
        browser.driver().executeScript("document.querySelector('input.at').value = '2030-01-02T03:04:05'");
        browser.click("button[data-action='reschedule']");
        browser.until(driver -> browser.text("#rmq-status").contains("rescheduled to 2030-01-02 03:04:05.000 UTC"));
        assertThat((long) client.producer().get(MessageRef.of("order-timeout", orderId)).orElseThrow().score())
                .isEqualTo(Instant.parse("2030-01-02T03:04:05Z").toEpochMilli());
        browser.until(driver -> browser.text("#message").contains("2030-01-02 03:04:05.000 UTC"));
        browser.screenshot("lookup");
    }

    @Test
    @Order(5)
    void aRefreshRedrawsOnlyWhatChangedAndNeverUnderAPressedButtonOrASelection() throws InterruptedException {
        // the message now waits for 2030: its page reads the same at every refresh, so its elements stay, from the
        // page's first refresh on
        browser.open(console("lookup?topic=order-timeout&key=" + orderId));
        String message = "document.querySelector('#message')";
        browser.driver().executeScript(message + ".rmqMark = 'kept'");
        refreshes(2);
        assertThat(browser.driver().executeScript("return " + message + ".rmqMark")).isEqualTo("kept");

        // a topic page draws its charts anew at every refresh
        browser.open(console("topics/order-timeout"));
        String slots = "document.querySelector('#slots')";
        browser.driver().executeScript(slots + ".rmqMark = 'drawn'");
        browser.until(driver -> driver.executeScript("return " + slots + ".rmqMark") == null);

        // but not while the mouse button is held down on it: a click would be lost with the button under it
        String button = "document.querySelector('button.act').dispatchEvent(new PointerEvent('%s', "
                + "{bubbles: true, isPrimary: true, button: 0}))";
        untouchedWhile(slots, button.formatted("pointerdown"), button.formatted("pointerup"));
        // nor while text on it is selected, as a key to copy is
        untouchedWhile(slots, "window.getSelection().selectAllChildren(" + slots + ".querySelector('td'))",
                "window.getSelection().removeAllRanges()");

        // a control reached with the keyboard keeps the focus when the page is redrawn around it
        Object action = browser.driver().executeScript("var control = document.querySelector('#rmq-main button.act');"
                + slots + ".rmqMark = 'drawn'; control.focus(); return control.getAttribute('data-action')");
        browser.until(driver -> driver.executeScript("return " + slots + ".rmqMark") == null);
        assertThat(browser.driver().executeScript("return document.activeElement.getAttribute('data-action')"))
                .as("the focused control after a redraw").isEqualTo(action);
    }

    /**
     * Marks {@code element}, does {@code begin}, and checks that two refreshes' time later no refresh took an
     * answer and the element is the same; then does {@code end} and waits until a refresh redraws the element.
     */
    private void untouchedWhile(String element, String begin, String end) throws InterruptedException {
        browser.driver().executeScript(element + ".rmqMark = 'drawn'; " + begin);
        Object refreshed = refreshed();
        Thread.sleep(2_500); // the point: two refreshes' time goes by while the page is in use
        assertThat(refreshed()).as("no refresh while the page is in use").isEqualTo(refreshed);
        assertThat(browser.driver().executeScript("return " + element + ".rmqMark")).isEqualTo("drawn");
        browser.driver().executeScript(end);
        browser.until(driver -> driver.executeScript("return " + element + ".rmqMark") == null);
    }

    /** When the page's script last took a refresh's answer, whether or not it had to redraw. */
    private Object refreshed() {
        return browser.driver().executeScript("return document.body.getAttribute('data-refreshed')");
    }

    /** Waits until the page's script has taken {@code count} more refreshes' answers. */
    private void refreshes(int count) {
        for (int i = 0; i < count; i++) {
            Object before = refreshed();
            browser.until(driver -> !Objects.equals(before, refreshed()));
        }
    }

    @Test
    @Order(6)
    void aPoisonMessageIsFoundInTheDeadQueueAndRequeued() throws Exception {
        post("/merchant-tasks?merchant=m-66&task=explode");
        browser.open(console("topics/merchant-tasks/dead"));
        Function<ChromeDriver, WebElement> poisoned = driver -> driver.findElements(By.cssSelector("#dead tbody tr"))
                .stream().filter(row -> row.getText().contains("unknown task 'explode'")).findFirst().orElse(null);
        browser.until(poisoned);
        browser.screenshot("dead");
        browser.click(driver -> {
            WebElement row = poisoned.apply(driver);
            return row == null ? null : row.findElement(By.cssSelector("button[data-action='requeue']"));
        });
        browser.until(driver -> browser.text("#rmq-status").equals("requeued"));
    }

    @Test
    @Order(7)
    void aPausedTopicConsumesNothingUntilItIsResumed() throws Exception {
        browser.open(console("topics/merchant-tasks"));
        browser.click("button[data-action='pause']");
        browser.until(driver -> browser.text("#rmq-status").contains("paused"));
        post("/merchant-tasks?merchant=m-5&task=sync-catalog");

        browser.open(console(""));
        browser.until(driver -> cell("merchant-tasks", DUE_NOW).equals("1"));
        long until = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < until) {
            assertThat(cell("merchant-tasks", DUE_NOW)).as("nothing consumed while paused").isEqualTo("1");
            assertThat(client.inspector().counts("merchant-tasks").total().dueNow()).isEqualTo(1);
        }
        browser.open(console("topics/merchant-tasks"));
        browser.click("button[data-action='resume']");
        browser.until(driver -> browser.text("#rmq-status").contains("running"));
        browser.open(console(""));
        browser.until(driver -> cell("merchant-tasks", DUE_NOW).equals("0"));
    }

    @Test
    @Order(8)
    void withWritesOffNoControlAppearsAndForgedWritesAreRefused() throws IOException {
        // a second instance of the sample on the same servers, its console's writes off (arguments, which the
        // sample's application.yml does not override)
        try (ConfigurableApplicationContext readOnly = new SpringApplicationBuilder(RmqSamplesApplication.class)
                .run("--server.port=0", "--rmq.dashboard.write-operations-enabled=false",
                        "--rmq.redis.address=" + environment.getProperty("rmq.redis.address"),
                        "--rmq.zookeeper.connect-string=" + environment.getProperty("rmq.zookeeper.connect-string"))) {
            String other = "http://127.0.0.1:" + readOnly.getEnvironment().getProperty("local.server.port") + "/rmq/";
            browser.open(other + "topics/merchant-tasks");
            assertThat(browser.text("header")).contains("read-only");
            assertThat(browser.all("button.act")).isEmpty();
            browser.screenshot("read-only");
            Object refused = browser.driver().executeAsyncScript("var done = arguments[0];"
                    + "fetch('../actions', {method: 'POST', headers: {'Content-Type': 'application/json',"
                    + " 'X-Rmq-Console': '1'}, body: JSON.stringify({action: 'pause', topic: 'merchant-tasks'})})"
                    + ".then(function (r) { done(r.status); }, function (e) { done(String(e)); });");
            assertThat(refused).as("a write to a read-only console").isEqualTo(403L);

            // a form on another site posts to the writable console: the browser sends it, the console refuses it
            browser.open("data:text/html,<form method=post enctype=text/plain action='" + console("actions")
                    + "'><input name='{\"action\":\"pause\",\"topic\":\"merchant-tasks\",\"x\":\"' value='\"}'></form>");
            browser.driver().executeScript("document.forms[0].submit()");
            browser.until(driver -> driver.getPageSource().contains("comes from"));
            assertThat(client.admin().pauseState("merchant-tasks").paused()).isFalse();
        }
    }
}
