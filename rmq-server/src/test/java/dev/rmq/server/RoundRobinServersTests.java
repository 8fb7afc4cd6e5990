package dev.rmq.server;

import dev.rmq.embedded.EmbeddedZooKeeper;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.FreePorts;
import dev.rmq.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two rmq-server processes on one Redis and one ZooKeeper, behind a loopback proxy that sends each new connection
 * to the next server in turn, every request on a connection of its own: a token handed out by one server is
 * settled by either, so every message is committed once and none is lost or refused.
 */
class RoundRobinServersTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int MESSAGES = 10_000;
    private static final String TOPIC = "rr-jobs";

    private static RedisServer redis;
    private static EmbeddedZooKeeper zookeeper;
    private static final List<ServerProcess> servers = new ArrayList<>();
    private static TcpProxy proxy;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisServer.start();
        zookeeper = EmbeddedZooKeeper.start();
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        int[] ports = FreePorts.distinct(2);
        for (int i = 0; i < 2; i++) {
            servers.add(ServerProcess.start("round-robin-server-" + i, ports[i], List.of(
                    "--rmq.redis.address=" + redis.address(),
                    "--rmq.zookeeper.connect-string=" + zookeeper.connectString(),
                    "--rmq.server.embedded=false",
                    "--rmq.server.pull.id=server-" + i,
                    "--rmq.server.tokens.secret=" + Base64.getEncoder().encodeToString(secret),
                    "--spring.profiles.active=round-robin",
                    "--rmq.topics." + TOPIC + ".type=PRIORITY",
                    "--rmq.topics." + TOPIC + ".slot-amount=16",
                    "--rmq.topics." + TOPIC + ".lease-timeout=30s")));
        }
        proxy = TcpProxy.roundRobin("127.0.0.1", ports);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        servers.forEach(ServerProcess::close);
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static ServerProcess.Answer viaProxy(String method, String path, Object body) {
        return ServerProcess.request(proxy.port(), method, path, body == null ? null : JSON.writeValueAsString(body));
    }

    @Test
    void everyMessageIsCommittedOnceWhicheverServerEachRequestReaches() throws Exception {
        for (int from = 0; from < MESSAGES; from += 1000) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = from; i < from + 1000; i++) {
                batch.add(Map.of("payload", Map.of("n", i), "key", "m" + i, "priority", 17 + i % 1000));
            }
            ServerProcess.Answer sent = viaProxy("POST", "/api/v1/topics/" + TOPIC + "/messages:batch",
                    Map.of("messages", batch));
            assertThat(sent.status()).as(sent.body()).isEqualTo(201);
        }

        Set<String> committed = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger pulls = new AtomicInteger();
        List<String> refusals = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + Duration.ofMinutes(4).toNanos();
        ExecutorService workers = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                running.add(workers.submit(() -> {
                    while (committed.size() < MESSAGES && System.nanoTime() < deadline) {
                        pulls.incrementAndGet();
                        ServerProcess.Answer pulled = viaProxy("POST", "/api/v1/pull",
                                Map.of("topics", List.of(TOPIC), "count", 25, "timeout", "PT1S"));
                        assertThat(pulled.status()).as(pulled.body()).isEqualTo(200);
                        for (JsonNode delivery : JSON.readTree(pulled.body()).path("deliveries")) {
                            String key = delivery.path("key").asString();
                            ServerProcess.Answer acked = viaProxy("POST", "/api/v1/deliveries/"
                                    + delivery.path("token").asString() + "/ack", null);
                            if (acked.status() == 200 && JSON.readTree(acked.body()).path("outcome").asString()
                                    .equals("COMMITTED")) {
                                if (!committed.add(key)) {
                                    duplicates.incrementAndGet();
                                }
                            } else {
                                refused.incrementAndGet();
                                synchronized (refusals) {
                                    refusals.add(key + ": " + acked.status() + " " + acked.body());
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : running) {
                worker.get();
            }
        } finally {
            workers.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        System.out.printf("round robin over 2 servers: %,d messages committed in %.1f s (%.0f commits/s), %,d pulls,"
                        + " %d refused, %d twice; connections per server %s%n", committed.size(), seconds,
                committed.size() / seconds, pulls.get(), refused.get(), duplicates.get(),
                proxy.connectionsPerTarget());
        assertThat(refusals).as("acks refused").isEmpty();
        assertThat(duplicates).hasValue(0);
        assertThat(committed).hasSize(MESSAGES);
        JsonNode counts = JSON.readTree(viaProxy("GET", "/api/v1/topics/" + TOPIC + "/counts", null).body());
        assertThat(counts.path("total").path("waiting").asLong()).isZero();
        assertThat(counts.path("total").path("inFlight").asLong()).isZero();
        assertThat(proxy.connectionsPerTarget()).allSatisfy(connections -> assertThat(connections).isGreaterThan(
                (long) MESSAGES / 3));
    }

    private static ServerProcess.Answer on(int server, String method, String path, Object body) {
        return ServerProcess.request(servers.get(server).port(), method, path,
                body == null ? null : JSON.writeValueAsString(body));
    }

    @Test
    void theOtherServerExtendsAndAcknowledgesADeliveryAndRefusesAForgedOrSpentToken() throws Exception {
        for (int i = 0; i < 16; i++) {
            on(1, "POST", "/api/v1/topics/" + TOPIC + "/messages", Map.of("payload", "x", "key", "other-" + i,
                    "priority", 30));
        }
        // server 0 holds about half the slots: it hands out one of the messages
        JsonNode delivery = JSON.readTree(on(0, "POST", "/api/v1/pull", Map.of("topics", List.of(TOPIC),
                "timeout", "PT5S")).body()).path("deliveries").get(0);
        assertThat(delivery).as("server 0 handed out a message").isNotNull();
        String token = delivery.path("token").asString();
        char last = token.charAt(token.length() - 1);
        String forged = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');
        for (int server = 0; server < 2; server++) {
            ServerProcess.Answer answer = on(server, "POST", "/api/v1/deliveries/" + forged + "/ack", null);
            assertThat(answer.status()).as(answer.body()).isEqualTo(410);
            assertThat(answer.body()).contains("lease-expired");
        }

        JsonNode reported = JSON.readTree(on(1, "POST", "/api/v1/deliveries/" + token + "/progress",
                Map.of("percent", 30, "note", "from the other server")).body());
        assertThat(reported.path("outcome").asString()).isEqualTo("PROGRESS_RECORDED");
        assertThat(reported.path("token").asString()).as("the lease, and so its token, stay").isEqualTo(token);
        JsonNode looked = JSON.readTree(on(0, "GET", "/api/v1/topics/" + TOPIC + "/messages/"
                + delivery.path("key").asString(), null).body());
        assertThat(looked.path("progress").path("note").asString()).isEqualTo("from the other server");

        JsonNode extended = JSON.readTree(on(1, "POST", "/api/v1/deliveries/" + token + "/extend",
                Map.of("duration", "PT5M")).body());
        assertThat(extended.path("outcome").asString()).isEqualTo("EXTENDED");
        String renewed = extended.path("token").asString();
        JsonNode acked = JSON.readTree(on(1, "POST", "/api/v1/deliveries:ack",
                Map.of("tokens", List.of(renewed, token))).body()).path("results");
        assertThat(acked.get(0).path("outcome").asString()).isEqualTo("COMMITTED");
        assertThat(acked.get(1).path("outcome").asString()).as("the lease it named was extended").isEqualTo("STALE");
        for (int server = 0; server < 2; server++) {
            assertThat(on(server, "POST", "/api/v1/deliveries/" + renewed + "/ack", null).status())
                    .as("a spent token, on server %d", server).isEqualTo(410);
        }

        int left = 15;
        for (int round = 0; round < 40 && left > 0; round++) {
            for (JsonNode next : JSON.readTree(viaProxy("POST", "/api/v1/pull", Map.of("topics", List.of(TOPIC),
                    "count", 16, "timeout", "PT1S")).body()).path("deliveries")) {
                assertThat(viaProxy("POST", "/api/v1/deliveries/" + next.path("token").asString() + "/ack", null)
                        .status()).isEqualTo(200);
                left--;
            }
        }
        assertThat(left).isZero();
    }
}
