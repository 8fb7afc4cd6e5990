package dev.rmq.badinput;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Random keys, slot bases, headers and payloads (unicode, empty strings, braces, control characters,
 * very long strings) survive the round trip through Redis exactly, and every Redis key stays inside the
 * hash tag of its slot whatever the message key contains.
 */
class FuzzRoundTripTests extends StandaloneRedisTest {

    private static final long SEED = Long.getLong("rmq.fuzz.seed", 20261121L);
    private static final String[] PIECES = {"{", "}", "{}", "}{", " ", "", "\u0000", "\n", "é", "日本語", "🚀", "\"", "\\",
            "_0", "prepare{x}", "%s", "\uD83D\uDE00", "\t", ":", "*", "?", "[a]"};

    private final Random random = new Random(SEED);

    private String randomText(int maxLength) {
        StringBuilder text = new StringBuilder();
        int target = random.nextInt(maxLength + 1);
        while (text.length() < target) {
            if (random.nextInt(3) == 0) {
                text.append(PIECES[random.nextInt(PIECES.length)]);
            } else {
                text.appendCodePoint(random.nextInt(4) == 0 ? 0x80 + random.nextInt(0x2FFF) : 0x20 + random.nextInt(0x5F));
            }
        }
        return text.toString();
    }

    private String randomKey() {
        String key = randomText(random.nextInt(10) == 0 ? 300 : 40);
        return key.isEmpty() ? "{}" : key;
    }

    @Test
    void randomMessagesRoundTripExactlyAndNoKeyEscapesItsSlotsHashTag() {
        RmqClient rmq = RmqClient.builder(redisson)
                .topic(TopicDefinition.builder("fuzz-text", TopicType.PRIORITY).slotAmount(8).build())
                .topic(TopicDefinition.builder("fuzz-bytes", TopicType.PRIORITY).slotAmount(8).build())
                .build();
        Map<String, Object> payloads = new HashMap<>();
        Map<String, Map<String, String>> headers = new HashMap<>();
        Map<String, String> bases = new HashMap<>();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            boolean bytes = i % 2 == 0;
            String topic = bytes ? "fuzz-bytes" : "fuzz-text";
            String key = randomKey() + "#" + i;
            Object payload;
            if (bytes) {
                byte[] raw = new byte[random.nextInt(10) == 0 ? 20_000 : random.nextInt(200)];
                random.nextBytes(raw);
                payload = raw;
            } else {
                payload = randomText(random.nextInt(10) == 0 ? 5000 : 100);
            }
            Map<String, String> h = new LinkedHashMap<>();
            for (int n = random.nextInt(4); n > 0; n--) {
                String name = randomText(20);
                h.put(name.isEmpty() ? "{" : name, randomText(60));
            }
            OutgoingMessage message = OutgoingMessage.priority(topic, payload, 17 + random.nextInt(1000)).withKey(key).withHeaders(h);
            if (random.nextBoolean()) {
                String basis = randomKey();
                message = message.withSlotBasis(basis);
                bases.put(key, basis);
            }
            payloads.put(key, payload);
            headers.put(key, h);
            if (random.nextBoolean()) {
                assertThat(rmq.producer().send(message).merged()).isFalse();
            } else {
                batch.add(message);
            }
        }
        for (SendReceipt receipt : rmq.producer().sendAll(batch)) {
            assertThat(receipt.merged()).isFalse();
        }

        for (Map.Entry<String, Object> entry : payloads.entrySet()) {
            String key = entry.getKey();
            String topic = entry.getValue() instanceof byte[] ? "fuzz-bytes" : "fuzz-text";
            MessageRef ref = new MessageRef(topic, key, bases.get(key));
            StoredMessage stored = rmq.producer().get(ref).orElseThrow(() -> new AssertionError("lost " + key));
            assertThat(stored.key()).isEqualTo(key);
            assertThat(stored.headers()).containsExactlyEntriesOf(headers.get(key));
            if (entry.getValue() instanceof byte[] raw) {
                assertThat(stored.payload()).containsExactly(raw);
            } else {
                assertThat(stored.payloadText()).isEqualTo(entry.getValue());
            }
        }
        assertKeysStayInTheirSlotsHashTag();

        Map<String, Object> consumed = new ConcurrentHashMap<>();
        Map<String, Map<String, String>> consumedHeaders = new ConcurrentHashMap<>();
        RmqConsumerContainer<byte[]> bytesConsumer = rmq.container("fuzz-bytes", byte[].class, RmqHandler.committing(m -> {
            consumed.put(m.key(), m.payload());
            consumedHeaders.put(m.key(), m.headers());
        })).concurrency(2).build();
        RmqConsumerContainer<String> textConsumer = rmq.container("fuzz-text", String.class, RmqHandler.committing(m -> {
            consumed.put(m.key(), m.payload());
            consumedHeaders.put(m.key(), m.headers());
        })).concurrency(2).build();
        bytesConsumer.start();
        textConsumer.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> consumed.size() == payloads.size());
        } finally {
            bytesConsumer.stop();
            textConsumer.stop();
        }
        payloads.forEach((key, payload) -> {
            Object got = consumed.get(key);
            if (payload instanceof byte[] raw) {
                assertThat(Arrays.equals((byte[]) got, raw)).as("bytes of %s (seed %d)", key, SEED).isTrue();
            } else {
                assertThat(got).as("text of %s (seed %d)", key, SEED).isEqualTo(payload);
            }
            assertThat(consumedHeaders.get(key)).containsExactlyEntriesOf(headers.get(key));
        });
        assertKeysStayInTheirSlotsHashTag();
    }

    /** Redis Cluster hashes the first non-empty {...} of a key name, else the whole name. */
    @SuppressWarnings("unchecked")
    private void assertKeysStayInTheirSlotsHashTag() {
        List<Object> keys = (List<Object>) redis.command("KEYS", "*");
        assertThat(keys).isNotEmpty();
        for (Object k : keys) {
            String key = (String) k;
            String tag = hashTag(key);
            assertThat(tag).as("hash tag of %s", key).matches("fuzz-(text|bytes)_[0-7]");
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).as("length of %s", key).isLessThan(100);
        }
    }

    private static String hashTag(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key.substring(open + 1, close);
            }
        }
        return key;
    }
}
