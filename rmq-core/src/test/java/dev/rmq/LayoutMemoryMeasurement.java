package dev.rmq;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.testsupport.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures Redis memory per queued message: INFO memory before and after 100,000 messages with unique
 * 64-byte payloads (default derived keys), for each type. Not part of the default run (the name does
 * not end in Tests); run it with
 * {@code ./mvnw -pl rmq-core -am test -Dtest=LayoutMemoryMeasurement -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class LayoutMemoryMeasurement {

    private static final int MESSAGES = 100_000;
    private static final int PAYLOAD_BYTES = 64;

    @Test
    void reportsBytesPerQueuedMessage() {
        try (RedisServer redis = RedisTestServers.newStandalone()) {
            RedissonClient redisson = Fixtures.redisson(redis);
            try {
                for (TopicType type : TopicType.values()) {
                    redis.command("FLUSHALL");
                    String topic = type.name().toLowerCase(Locale.ROOT).replace('_', '-');
                    RmqClient rmq = RmqClient.builder(redisson)
                            .topic(TopicDefinition.builder(topic, type).slotAmount(16).build()).build();
                    long before = Long.parseLong(redis.info("memory").get("used_memory"));
                    for (int from = 0; from < MESSAGES; from += 1000) {
                        List<OutgoingMessage> batch = new ArrayList<>(1000);
                        for (int i = from; i < from + 1000; i++) {
                            batch.add(message(type, topic, payload(i)));
                        }
                        rmq.producer().sendAll(batch);
                    }
                    deleteReplayKeys(redis);
                    long after = Long.parseLong(redis.info("memory").get("used_memory"));
                    assertThat(redis.command("DBSIZE")).isEqualTo(32L);
                    double perMessage = (after - before) / (double) MESSAGES;
                    System.out.printf(Locale.ROOT, "%-12s redis %s: %.1f bytes per message, %.1f beyond the %d-byte payload%n",
                            type, redis.version(), perMessage, perMessage - PAYLOAD_BYTES, PAYLOAD_BYTES);
                }
            } finally {
                redisson.shutdown();
            }
        }
    }

    /**
     * Each pipelined script call leaves its reply under a call key for 30 s, so that a repeated batch can
     * replay it; they are not part of what a queued message costs, so they go before the reading.
     */
    @SuppressWarnings("unchecked")
    private static void deleteReplayKeys(RedisServer redis) {
        for (Object key : (List<Object>) redis.command("KEYS", "call{*")) {
            redis.command("DEL", (String) key);
        }
    }

    private static OutgoingMessage message(TopicType type, String topic, byte[] payload) {
        return switch (type) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic, payload, Duration.ofHours(1));
            case PRIORITY -> OutgoingMessage.priority(topic, payload, 100);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic, payload, java.time.Instant.now().plusSeconds(3600));
        };
    }

    private static byte[] payload(int i) {
        byte[] bytes = String.format(Locale.ROOT, "%064d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(bytes).hasSize(PAYLOAD_BYTES);
        return bytes;
    }
}
