package dev.rmq.benchmarks.http;

import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * Starts a redis-server and rmq-server's jar on it (ZooKeeper in the server's own process), then, each repetition,
 * sends N messages in batches of 100 and pulls and acknowledges them 100 at a time: over HTTP with 4 client
 * threads, and through the Java client's producer and puller with 4 threads, on the same Redis and topic, after
 * one round of both that is not measured. Prints
 * rates with medians and ranges, and HTTP's as a ratio of the Java client's in the same repetition.
 *
 * <p>Arguments: {@code --server-jar PATH} (required), {@code --reps N} (3), {@code --messages N} (20,000).
 */
public final class HttpBench {

    private static final String TOPIC = "bench-http";
    private static final int SLOTS = 16;
    private static final int THREADS = 4;
    private static final int BATCH = 100;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpBench() {
    }

    record Rates(double send, double pull) {
    }

    public static void main(String[] args) throws Exception {
        String jar = null;
        int reps = 3;
        int messages = 20_000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--server-jar" -> jar = args[i + 1];
                case "--reps" -> reps = Integer.parseInt(args[i + 1]);
                case "--messages" -> messages = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("usage: http-bench --server-jar PATH [--reps N] [--messages N]");
            }
        }
        if (jar == null) {
            throw new IllegalArgumentException("--server-jar is required: the path of rmq-server.jar");
        }
        List<Rates> http = new ArrayList<>();
        List<Rates> direct = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            int port = freePort();
            Process server = startServer(jar, redis, port);
            RedissonClient redisson = redisson(redis);
            try (RmqClient client = RmqClient.builder(redisson).topic(TopicDefinition.builder(TOPIC, TopicType.PRIORITY)
                    .slotAmount(SLOTS).build()).build()) {
                String base = "http://127.0.0.1:" + port;
                awaitUp(base, server);
                // one round unmeasured, so that both sides' code is compiled before the first measured one
                redis.command("FLUSHALL");
                overHttp(base, messages);
                redis.command("FLUSHALL");
                throughClient(client, messages);
                for (int rep = 1; rep <= reps; rep++) {
                    redis.command("FLUSHALL");
                    Rates viaHttp = overHttp(base, messages);
                    redis.command("FLUSHALL");
                    Rates viaClient = throughClient(client, messages);
                    http.add(viaHttp);
                    direct.add(viaClient);
                    System.out.printf("rep %d  HTTP send %,8.0f pull %,8.0f msgs/s   Java client send %,8.0f pull %,8.0f"
                            + " msgs/s%n", rep, viaHttp.send(), viaHttp.pull(), viaClient.send(), viaClient.pull());
                }
            } finally {
                redisson.shutdown();
                server.destroy();
                if (!server.waitFor(30, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
        System.out.println();
        System.out.println("| batches of 100 | HTTP msgs/s | Java client msgs/s | HTTP / client |");
        System.out.println("|---|---|---|---|");
        System.out.printf("| send | %s | %s | %s |%n", median(http, Rates::send), median(direct, Rates::send),
                ratio(http, direct, Rates::send));
        System.out.printf("| pull and ack | %s | %s | %s |%n", median(http, Rates::pull), median(direct, Rates::pull),
                ratio(http, direct, Rates::pull));
        System.exit(0);
    }

    private static Rates overHttp(String base, int messages) throws Exception {
        double send = timed(messages, from -> {
            List<Map<String, Object>> batch = new ArrayList<>(BATCH);
            for (int j = from; j < Math.min(messages, from + BATCH); j++) {
                batch.add(Map.of("payload", Map.of("order", j), "key", "h-" + j, "priority", 100 + j % 50));
            }
            post(base + "/api/v1/topics/" + TOPIC + "/messages:batch", Map.of("messages", batch));
        });
        AtomicLong pulled = new AtomicLong();
        double pull = drained(messages, pulled, () -> {
            JsonNode got = post(base + "/api/v1/pull", Map.of("topics", List.of(TOPIC), "count", BATCH,
                    "timeout", "PT0.2S"));
            List<String> tokens = new ArrayList<>();
            got.path("deliveries").forEach(delivery -> tokens.add(delivery.path("token").asString()));
            if (!tokens.isEmpty()) {
                post(base + "/api/v1/deliveries:ack", Map.of("tokens", tokens));
                pulled.addAndGet(tokens.size());
            }
        });
        return new Rates(send, pull);
    }

    private static Rates throughClient(RmqClient client, int messages) throws Exception {
        double send = timed(messages, from -> {
            List<OutgoingMessage> batch = new ArrayList<>(BATCH);
            for (int j = from; j < Math.min(messages, from + BATCH); j++) {
                batch.add(OutgoingMessage.priority(TOPIC, Map.of("order", j), 100 + j % 50).withKey("c-" + j));
            }
            client.producer().sendAll(batch);
        });
        AtomicLong pulled = new AtomicLong();
        try (RmqPuller<JsonNode> puller = client.puller(JsonNode.class).topics(TOPIC).id("bench").build()) {
            puller.start();
            return new Rates(send, drained(messages, pulled, () -> {
                List<PulledMessage<JsonNode>> got = puller.poll(BATCH, Duration.ofMillis(200));
                if (!got.isEmpty()) {
                    puller.ackAll(got);
                    pulled.addAndGet(got.size());
                }
            }));
        }
    }

    /** Messages per second for THREADS threads that each send every THREADS-th batch. */
    private static double timed(int messages, IntConsumer sendBatchFrom) throws Exception {
        long start = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t * BATCH;
            done.add(threads.submit(() -> {
                for (int from = first; from < messages; from += THREADS * BATCH) {
                    sendBatchFrom.accept(from);
                }
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
        threads.shutdown();
        return messages / ((System.nanoTime() - start) / 1e9);
    }

    /** Messages per second for THREADS threads that pull until {@code pulled} reaches {@code messages}. */
    private static double drained(int messages, AtomicLong pulled, Runnable pullOnce) throws Exception {
        long start = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            done.add(threads.submit(() -> {
                while (pulled.get() < messages) {
                    pullOnce.run();
                }
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
        threads.shutdown();
        return messages / ((System.nanoTime() - start) / 1e9);
    }

    private static JsonNode post(String url, Object body) {
        try {
            HttpResponse<String> reply = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (reply.statusCode() >= 300) {
                throw new IllegalStateException("POST " + url + " answered " + reply.statusCode() + ": " + reply.body());
            }
            return JSON.readTree(reply.body());
        } catch (IOException e) {
            throw new IllegalStateException("POST " + url + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Process startServer(String jar, RedisServer redis, int port) throws IOException {
        return new ProcessBuilder("java", "-Xmx1g", "-jar", jar, "--server.port=" + port,
                "--spring.profiles.active=bench", "--rmq.redis.address=" + redis.address(),
                "--rmq.topics." + TOPIC + ".type=PRIORITY", "--rmq.topics." + TOPIC + ".slot-amount=" + SLOTS,
                "--logging.level.root=WARN")
                .redirectErrorStream(true).redirectOutput(Path.of(System.getProperty("java.io.tmpdir"),
                        "rmq-http-bench-server.log").toFile()).start();
    }

    private static void awaitUp(String base, Process server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IllegalStateException("rmq-server ended at start; see its log in java.io.tmpdir");
            }
            try {
                HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("rmq-server did not answer within 120 s");
    }

    private static String median(List<Rates> rates, java.util.function.ToDoubleFunction<Rates> of) {
        List<Double> sorted = rates.stream().map(of::applyAsDouble).sorted().toList();
        return String.format("%,.0f (%,.0f to %,.0f)", sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }

    private static String ratio(List<Rates> http, List<Rates> direct, java.util.function.ToDoubleFunction<Rates> of) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < http.size(); i++) {
            ratios.add(of.applyAsDouble(http.get(i)) / of.applyAsDouble(direct.get(i)));
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        return String.format("%.2f (%.2f to %.2f)", sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }

    private static RedissonClient redisson(RedisServer server) {
        Config config = new Config();
        config.useSingleServer().setAddress(server.address()).setConnectionMinimumIdleSize(8)
                .setConnectionPoolSize(32).setTimeout(30_000);
        return Redisson.create(config);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
