package dev.rmq.server;

import dev.rmq.server.pull.ServerPuller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis that does not answer: the server's own redis-server is made to hold every write (CLIENT PAUSE, as a
 * stalled server or connection would) past the client's timeout, and a send answers {@code unavailable}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.port=0",
        "rmq.redis.timeout=300ms"
})
class UnavailableTests {

    @Value("${local.server.port}")
    int port;

    @Value("${rmq.redis.address}")
    String redisAddress;

    @Autowired
    ServerPuller puller;

    @Test
    void aSendRedisDoesNotAnswerIsUnavailable() throws IOException {
        HttpApi api = new HttpApi(port);
        String due = Instant.now().plus(Duration.ofHours(1)).toString();
        api.send("orders-timeout", Map.of("payload", "before", "key", "before", "dueTime", due));

        redis("CLIENT", "PAUSE", "30000", "WRITE");
        HttpApi.Reply reply;
        try {
            reply = api.post("/api/v1/topics/orders-timeout/messages",
                    HttpApi.json(Map.of("payload", "during", "key", "during", "dueTime", due)));
        } finally {
            redis("CLIENT", "UNPAUSE");
        }

        JsonNode problem = reply.problem("unavailable", 503);
        assertThat(problem.path("detail").asString()).contains("may or may not be stored");
        assertThat(reply.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    void anAckRetriedAfterRedisDidNotAnswerReachesRedis() throws IOException {
        HttpApi api = new HttpApi(port);
        api.send("merchant-tasks", Map.of("payload", "job", "key", "retried-ack", "priority", 50));
        JsonNode delivery = api.pullKey("merchant-tasks", "retried-ack");
        String ack = "/api/v1/deliveries/" + delivery.path("token").asString() + "/ack";

        redis("CLIENT", "PAUSE", "30000", "WRITE");
        try {
            api.post(ack).problem("unavailable", 503);
            // the server's connections go, and the ack held in them with them: it never reached the data
            redis("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
        } finally {
            redis("CLIENT", "UNPAUSE");
        }

        assertThat(api.post(ack).expect(200).path("outcome").asString()).as("the retry the 503 asked for")
                .isEqualTo("COMMITTED");
        api.get("/api/v1/topics/merchant-tasks/messages/retried-ack").problem("not-found", 404);
    }

    @Test
    void acksWhileThePullerIsStoppedAreUnavailableAndTheirRetryGetsTheAnswerOfRedis() {
        HttpApi api = new HttpApi(port);
        api.send("merchant-tasks", Map.of("payload", "job", "key", "acked-across-a-stop", "priority", 50));
        String token = api.pullKey("merchant-tasks", "acked-across-a-stop").path("token").asString();
        String batch = HttpApi.json(Map.of("tokens", List.of(token)));

        puller.stop();
        try {
            // the stop handed the message back, so its token is another server's now: settled by reference in Redis,
            // which the stopped puller cannot do
            api.post("/api/v1/deliveries:ack", batch).problem("unavailable", 503);
            api.post("/api/v1/deliveries/" + token + "/ack").problem("unavailable", 503);
        } finally {
            puller.start();
        }

        JsonNode retried = api.post("/api/v1/deliveries:ack", batch).expect(200);
        assertThat(retried.path("results").get(0).path("outcome").asString())
                .as("Redis's answer: the stop handed the message back unstarted").isEqualTo("STALE");
        String again = api.pullKey("merchant-tasks", "acked-across-a-stop").path("token").asString();
        assertThat(api.post("/api/v1/deliveries/" + again + "/ack").expect(200).path("outcome").asString())
                .isEqualTo("COMMITTED");
    }

    /**
     * One command to the server's Redis over RESP, on a connection of its own, which must answer OK or a count;
     * returns the first reply line.
     */
    private String redis(String... args) throws IOException {
        URI address = URI.create(redisAddress);
        try (Socket socket = new Socket(address.getHost(), address.getPort())) {
            socket.setSoTimeout(5000);
            StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                command.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
                        .append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(command.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder reply = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                reply.append((char) c);
            }
            assertThat(reply.toString()).as("Redis' reply to %s", String.join(" ", args)).matches("\\+OK\\s*|:\\d+\\s*");
            return reply.toString();
        }
    }
}
