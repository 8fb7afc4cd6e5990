package dev.rmq.samples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.opentest4j.TestAbortedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import dev.rmq.samples.dashboard.DashboardRendering;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the sample as the README says, with nothing configured, and tries the README's curl lines. In the
 * test phase it starts the application's main class in a child JVM; after packaging (failsafe, with
 * {@code -Drmq.sample.jar=...}) it runs {@code java -jar rmq-samples.jar} itself.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SampleApplicationTests {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    /**
     * What starts the sample as a terminal starts a program: in a process group of its own (util-linux's setsid),
     * with SIGINT handled by default (coreutils' env). A build started in the background inherits SIGINT ignored,
     * and a JVM that starts with SIGINT ignored keeps ignoring it. Empty where either tool is missing.
     */
    private static final List<String> AS_FROM_A_TERMINAL = asFromATerminal();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Whether the jar runs its ahead-of-time processed context ({@code -Drmq.sample.aot=true}). */
    private static final boolean AOT = Boolean.getBoolean("rmq.sample.aot");
    /** Whether it runs on Java 21 or later with virtual threads ({@code -Drmq.sample.virtual=true}). */
    private static final boolean VIRTUAL = Boolean.getBoolean("rmq.sample.virtual");

    private static Process app;
    private static Path log;
    private static int port;
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "rmq-dashboard.json");
    /** The sample's metrics scraped twice a second while the tests run, for the dashboard's rendering. */
    private static final DashboardRendering RENDERING = new DashboardRendering();
    private static ScheduledExecutorService scraper;

    @BeforeAll
    static void startTheSampleWithNothingConfigured() throws IOException {
        port = freePort();
        String jar = System.getProperty("rmq.sample.jar");
        String java = VIRTUAL ? JavaRuntimes.atLeast(21).orElseThrow(() -> new TestAbortedException("no Java 21 or later"
                + " here (" + JavaRuntimes.WHERE + "), so the virtual-thread path is not tested"))
                : Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>();
        // the last test signals the whole group, as Ctrl-C does
        command.addAll(AS_FROM_A_TERMINAL);
        command.add(java);
        if (AOT) {
            command.add("-Dspring.aot.enabled=true");
        }
        command.addAll(jar != null ? List.of("-jar", jar)
                : List.of("-cp", System.getProperty("java.class.path"), RmqSamplesApplication.class.getName()));
        command.add("--server.port=" + port);
        if (VIRTUAL) {
            command.add("--spring.threads.virtual.enabled=true");
        }
        Path target = Path.of("target");
        Files.createDirectories(target);
        log = target.resolve((jar != null ? "sample-jar" : "sample-main") + (AOT ? "-aot" : "")
                + (VIRTUAL ? "-virtual" : "") + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (jar != null) {
            // the jar runs as on a machine with only a JDK: Redis from the binary in the embedded-redis artifact
            builder.environment().put("RMQ_TEST_REDIS", "embedded");
        }
        app = builder.start();
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> !app.isAlive() || get("/actuator/health").statusCode() == 200);
        assertThat(app.isAlive()).as("the sample exited during start-up; see %s", log.toAbsolutePath()).isTrue();
        if (jar == null && !AOT && !VIRTUAL) {
            scraper = Executors.newSingleThreadScheduledExecutor();
            scraper.scheduleAtFixedRate(SampleApplicationTests::scrape, 0, 500, TimeUnit.MILLISECONDS);
            // a first scrape before any test sends: a rate needs the value before it
            await().atMost(Duration.ofSeconds(30)).until(() -> RENDERING.scrapes() > 0);
        }
    }

    private static void scrape() {
        try {
            HttpResponse<String> scraped = get("/actuator/prometheus");
            if (scraped.statusCode() == 200) {
                RENDERING.add(System.currentTimeMillis(), scraped.body());
            }
        } catch (IOException | InterruptedException e) {
            // a scrape missed leaves a gap in the lines
        }
    }

    @AfterAll
    static void stopWhateverIsLeft() throws IOException {
        if (scraper != null) {
            scraper.shutdownNow();
        }
        if (app != null && app.isAlive()) {
            app.destroyForcibly();
        }
        embeddedRedisPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    @Order(1)
    void healthIsUpWithRedisAndZooKeeper() throws Exception {
        JsonNode health = json(get("/actuator/health"));
        assertThat(health.at("/status").asString()).isEqualTo("UP");
        assertThat(health.at("/components/rmq/components/redis/status").asString()).isEqualTo("UP");
        assertThat(health.at("/components/rmq/components/zookeeper/status").asString()).isEqualTo("UP");
        assertThat(Files.readString(log)).contains("No Redis is configured: started redis-server",
                "No ZooKeeper is configured: started one in-process");
        if (AOT) {
            assertThat(Files.readString(log)).contains("Starting AOT-processed RmqSamplesApplication");
        }
        if (VIRTUAL) {
            assertThat(Files.readString(log)).contains("rmq listeners run on virtual threads"
                    + " (spring.threads.virtual.enabled=true)");
        }
    }

    @Test
    @Order(2)
    void aBurstOfPriceUpdatesBecomesOneRenderJob() throws Exception {
        JsonNode burst = json(post("/prices/sku-42/burst?count=10"));
        assertThat(burst.at("/sent").asInt()).isEqualTo(10);
        assertThat(burst.at("/merged").asInt()).isEqualTo(9);
        assertThat(burst.at("/mergeWindow").asString()).isEqualTo("5s");
        assertThat(burst.at("/latestCents").asInt()).isEqualTo(1009);

        await().atMost(Duration.ofSeconds(30)).until(() -> logLines("price-change: rendering").size() == 1);
        assertThat(logLines("price-change: rendering").get(0))
                .contains("rendering the price image of sku-42 at 10.09 (10 update(s) merged into this one job;");
    }

    @Test
    @Order(3)
    void keyAccountTasksGoFirst() throws Exception {
        assertThat(json(post("/merchant-tasks/demo")).size()).isEqualTo(6);

        // while the tasks run, the one in flight shows its progress, reported half way, beside its lease deadline
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode running = json(get("/actuator/rmq/merchant-tasks?view=inflight")).path("messages")
                    .path("entries");
            assertThat(running).isNotEmpty();
            assertThat(running.get(0).path("progress").path("note").asString()).startsWith("half of ");
            assertThat(running.get(0).path("leaseDeadline").asString()).isNotEmpty();
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> logLines(" merchant m-").size() == 6);
        List<String> order = logLines(" merchant m-").stream()
                .map(line -> line.substring(line.indexOf("merchant-tasks:"))).toList();
        assertThat(order.subList(0, 3)).allSatisfy(line -> assertThat(line).contains("key-account merchant"));
        assertThat(order.subList(3, 6)).allSatisfy(line -> assertThat(line).contains("regular merchant"));
    }

    @Test
    @Order(4)
    void anUnpaidOrderClosesAtItsDeadlineAndAPaidOneDoesNot() throws Exception {
        String unpaid = json(post("/orders?payWithin=5s")).at("/id").asString();
        String paid = json(post("/orders?payWithin=5s")).at("/id").asString();
        assertThat(List.of(unpaid, paid)).as("the ids the README names").containsExactly("o-1001", "o-1002");
        assertThat(json(post("/orders/o-1002/pay")).at("/status").asString()).isEqualTo("PAID");

        await().atMost(Duration.ofSeconds(30)).until(() -> json(get("/orders/" + unpaid)).at("/status").asString().equals("CLOSED"));
        // the handler closes the order, then logs it: the status can be read before the line reaches the log file
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                logLines("order-timeout: closed unpaid order " + unpaid + " at its deadline")).hasSize(1));
        assertThat(json(get("/orders/" + paid)).at("/status").asString()).isEqualTo("PAID");
        assertThat(logLines("order " + paid)).isEmpty();
    }

    @Test
    @Order(5)
    void theActuatorShowsTopicsSlotsAndMetrics() throws Exception {
        JsonNode overview = json(get("/actuator/rmq"));
        List<String> topics = new ArrayList<>();
        overview.at("/topics").forEach(topic -> topics.add(topic.at("/name").asString()));
        assertThat(topics).containsExactly("price-change", "merchant-tasks", "order-timeout");
        // the topic's description, in the shape rmq-server shows it too, beside what the endpoint adds
        JsonNode timeouts = overview.at("/topics/2");
        assertThat(timeouts.at("/type").asString()).isEqualTo("FIXED_TIME");
        assertThat(timeouts.at("/backoff/initial").asString()).isNotBlank();
        assertThat(timeouts.at("/lateTolerance").asString()).isEqualTo("PT10S");
        assertThat(timeouts.has("ttl")).as("a control that is not set is left out").isFalse();
        assertThat(timeouts.at("/state").asString()).isEqualTo("running");
        assertThat(overview.at("/assignment").asString()).as("the embedded ZooKeeper assigns the slots")
                .isEqualTo("zookeeper");
        assertThat(Files.readString(log)).doesNotContain("rmq assigns slots locally");

        JsonNode orders = json(get("/actuator/rmq/order-timeout"));
        assertThat(orders.at("/slots").size()).isEqualTo(16);
        Map<String, Integer> slotsPerWorker = new HashMap<>();
        orders.at("/slots").forEach(slot -> {
            assertThat(slot.at("/owners").size()).as("slot %s has an owner", slot.at("/slot")).isEqualTo(1);
            String owner = slot.at("/owners/0").asString();
            assertThat(owner).as("the owner is the planned worker").isEqualTo(slot.at("/planned").asString());
            slotsPerWorker.merge(owner, 1, Integer::sum);
        });
        assertThat(slotsPerWorker.values()).as("concurrency 2: two workers, eight slots each").containsExactly(8, 8);

        JsonNode slot = json(get("/actuator/rmq/order-timeout/0?limit=5"));
        assertThat(slot.at("/slot").asInt()).isZero();
        assertThat(slot.at("/deadMessages").isArray()).isTrue();
        HttpResponse<String> refused = post("/actuator/rmq/order-timeout/pause");
        assertThat(refused.statusCode()).as("write operations are off by default").isEqualTo(403);
        assertThat(refused.body()).contains("management.endpoint.rmq.access=UNRESTRICTED");

        JsonNode merges = json(get("/actuator/metrics/rmq.merges"));
        assertThat(merges.at("/measurements/0/value").asDouble()).isEqualTo(9.0);
        assertThat(get("/actuator/metrics/rmq.consume").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/rmq.backlog").statusCode()).isEqualTo(200);

        HttpResponse<String> prometheus = get("/actuator/prometheus");
        assertThat(prometheus.statusCode()).isEqualTo(200);
        assertThat(prometheus.body()).contains("rmq_merges_total{").contains("rmq_backlog_messages{");

        // the Grafana dashboard that the repository ships asks only for what the sample exports
        List<String> queries = DashboardQueries.of(JSON.readTree(Files.readString(DASHBOARD)));
        assertThat(queries).hasSizeGreaterThan(10);
        assertThat(DashboardQueries.missing(queries, prometheus.body())).as("what the dashboard asks for").isEmpty();
        // and so does the autoscaling recipe of the operations page
        List<String> recipe = Files.readAllLines(Path.of("..", "docs", "operations.md")).stream().map(String::trim)
                .filter(line -> line.startsWith("query: ")).map(line -> line.substring("query: ".length())).toList();
        assertThat(recipe).isNotEmpty();
        assertThat(DashboardQueries.missing(recipe, prometheus.body())).as("what the KEDA recipe asks for").isEmpty();
    }

    /**
     * The dashboard the repository ships, drawn from its own queries over the sample's metrics as the tests before
     * this one moved them: what they did shows on it. The drawing goes to target/rmq-dashboard.svg; the operations
     * page shows a copy, which must have every panel.
     */
    @Test
    @Order(6)
    void theDashboardDrawsWhatTheSampleDid() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(scraper != null, "drawn once, from the sample's main class");
        // a few seconds of steady use, so that every type shows more than one event
        int closedBefore = logLines("order-timeout: closed unpaid order").size();
        for (int round = 0; round < 6; round++) {
            assertThat(post("/prices/sku-" + round + "/burst?count=5").statusCode()).isEqualTo(200);
            assertThat(post("/orders?payWithin=2s").statusCode()).isEqualTo(200);
            if (round % 3 == 0) {
                assertThat(post("/merchant-tasks/demo").statusCode()).isEqualTo(200);
            }
            Thread.sleep(1_000); // the pace of the use, a round a second: what the charts draw over time
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> json(get("/actuator/rmq")).at("/topics/1/backlog")
                .asLong() == 0);
        // the last orders close 2 s after they were sent, and a few scrapes more see the topics at rest
        await().atMost(Duration.ofSeconds(30))
                .until(() -> logLines("order-timeout: closed unpaid order").size() == closedBefore + 6);
        int scrapesBefore = RENDERING.scrapes();
        await().atMost(Duration.ofSeconds(30)).until(() -> RENDERING.scrapes() >= scrapesBefore + 4);
        scraper.shutdownNow();
        assertThat(scraper.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
        List<String> titles = new ArrayList<>();
        dashboard.path("panels").forEach(panel -> titles.add(panel.path("title").asString()));
        assertThat(RENDERING.scrapes()).as("scrapes taken while the tests ran").isGreaterThan(10);

        List<DashboardRendering.Panel> panels = RENDERING.panels(dashboard, "5s");
        Files.writeString(Path.of("target", "rmq-dashboard.svg"), RENDERING.svg(dashboard, "5s",
                "the sample's own metrics while SampleApplicationTests ran, rates over 5 s"));

        assertThat(panels).extracting(DashboardRendering.Panel::title).containsExactlyElementsOf(titles);
        assertThat(peak(panels, "Sent", "price-change")).as("the burst of price updates").isPositive();
        assertThat(peak(panels, "Sent", "price-change merged")).as("nine of them merged").isPositive();
        assertThat(peak(panels, "Handled", "merchant-tasks success")).isPositive();
        assertThat(peak(panels, "Lateness p50 / p99", "order-timeout p99")).as("the closed orders").isPositive();
        // the gauges are read from Redis at most every 5 s, so a counter's rate is what surely shows the tasks
        assertThat(peak(panels, "Handler time (mean)", "merchant-tasks")).as("300 ms of pretend work per task")
                .isGreaterThan(0.2);
        assertThat(peak(panels, "Slots owned and paused", "order-timeout slots owned")).isEqualTo(16);
        String published = Files.readString(DASHBOARD.resolveSibling("rmq-dashboard.svg"));
        assertThat(titles).allSatisfy(title -> assertThat(published).contains(">" + title + "</text>"));
    }

    /** The highest value the line {@code line} of panel {@code title} reached; fails when it has none. */
    private static double peak(List<DashboardRendering.Panel> panels, String title, String line) {
        DashboardRendering.Panel panel = panels.stream().filter(p -> p.title().equals(title)).findFirst()
                .orElseThrow();
        double[] values = panel.lines().stream().filter(l -> l.name().equals(line)).findFirst()
                .orElseThrow(() -> new AssertionError("panel '" + title + "' has no line '" + line + "', only "
                        + panel.lines().stream().map(DashboardRendering.Line::name).toList()))
                .values();
        return java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).max()
                .orElseThrow(() -> new AssertionError("line '" + line + "' of '" + title + "' has no value"));
    }

    /** The runnable jar carries what the sample runs, not rmq's or anyone's test tooling. */
    @Test
    @Order(0)
    void theJarHoldsOnlyWhatItRuns() throws IOException {
        String jar = System.getProperty("rmq.sample.jar");
        org.junit.jupiter.api.Assumptions.assumeTrue(jar != null, "runs against the packaged jar only");
        List<String> libraries;
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar)) {
            libraries = file.stream().map(java.util.jar.JarEntry::getName)
                    .filter(name -> name.startsWith("BOOT-INF/lib/")).toList();
        }
        assertThat(libraries).anyMatch(name -> name.contains("rmq-embedded"))
                .noneMatch(name -> name.contains("rmq-test-support") || name.contains("curator-test")
                        || name.contains("junit") || name.contains("rmq-test-") || name.contains("assertj"));
    }

    /**
     * Ctrl-C in a terminal signals the whole foreground process group. The sample's embedded Redis runs in a group
     * of its own, so it outlives the application's shutdown, which then releases its slots quickly and quietly.
     */
    @Test
    @Order(7)
    void ctrlCStopsTheSampleWithinTheBoundQuietlyAndItsRedisAfterIt() throws Exception {
        long redisPid = embeddedRedisPid().orElseThrow();
        assertThat(ProcessHandle.of(redisPid)).isPresent();
        long logBefore = Files.size(log);

        long start = System.nanoTime();
        if (!AS_FROM_A_TERMINAL.isEmpty()) {
            int signalled = new ProcessBuilder("kill", "-s", "INT", "--", "-" + app.pid()).inheritIO().start().waitFor();
            assertThat(signalled).as("kill's exit code").isZero();
        } else {
            app.destroy(); // SIGTERM, as a service manager would
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> !app.isAlive());
        long tookMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();

        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(redisPid).map(p -> !p.isAlive()).orElse(true));
        String shutdown = Files.readString(log).substring((int) logBefore);
        assertThat(tookMillis).as("the time from Ctrl-C to the exit; the log of the stop:%n%s", shutdown)
                .isLessThan(15_000);
        assertThat(shutdown).contains("rmq listeners stopped in", "Stopped the embedded redis-server");
        assertThat(shutdown.lines().filter(line -> line.matches(".*\\bWARN\\b.*")).toList())
                .as("warnings during the stop").isEmpty();
    }

    private static List<String> asFromATerminal() {
        try {
            Process probe = new ProcessBuilder("setsid", "env", "--default-signal=INT", "true").start();
            if (probe.waitFor() == 0) {
                return List.of("setsid", "env", "--default-signal=INT");
            }
        } catch (IOException e) {
            // no setsid or env here: the test falls back to SIGTERM
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return List.of();
    }

    private static Optional<Long> embeddedRedisPid() throws IOException {
        if (log == null || !Files.exists(log)) {
            return Optional.empty();
        }
        Matcher m = Pattern.compile("No Redis is configured: started redis-server .* \\(pid (\\d+)\\)").matcher(Files.readString(log));
        return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    private static List<String> logLines(String fragment) throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(line -> line.contains(fragment)).toList();
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as("%s %s", response.request().uri(), response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
