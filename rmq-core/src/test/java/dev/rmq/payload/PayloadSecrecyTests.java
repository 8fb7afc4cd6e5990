package dev.rmq.payload;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.codec.Compression;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.DeadReason;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Compressed and encrypted payloads, as Redis holds them and as handlers, the inspector and the dead queue see them;
 * old and new forms side by side in one slot, and a key rotated in the middle of a backlog.
 */
class PayloadSecrecyTests extends StandaloneRedisTest {

    private static final String TOPIC = "invoices";
    private static final byte[] KEY_1 = bytes(1);
    private static final byte[] KEY_2 = bytes(2);

    private final List<RmqClient> clients = new ArrayList<>();
    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();

    private static byte[] bytes(int seed) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (seed * 31 + i * 7);
        }
        return key;
    }

    @AfterEach
    void close() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        clients.forEach(RmqClient::close);
    }

    private static TopicDefinition topic(PayloadForm form) {
        return TopicDefinition.builder(TOPIC, TopicType.PRIORITY).slotAmount(1).maxRetries(0).payloadForm(form).build();
    }

    private RmqClient client(PayloadForm form, PayloadKeyRing ring) {
        RmqClient.Builder builder = RmqClient.builder(redisson).topic(topic(form));
        if (ring != null) {
            builder.keyRing(ring);
        }
        RmqClient client = builder.build();
        clients.add(client);
        return client;
    }

    private Map<String, String> consume(RmqClient client) {
        return Handled.consume(client, TOPIC, String.class, containers);
    }

    /** The bytes Redis holds for a waiting message of the topic's only slot. */
    private static byte[] stored(String key) {
        String body = new KeyLayout("").slot(TOPIC, 0).body();
        return (byte[]) redisson.getMap(body, ByteArrayCodec.INSTANCE).get(key.getBytes(StandardCharsets.UTF_8));
    }

    private static String json(int size) {
        StringBuilder text = new StringBuilder("{\"lines\":[");
        for (int i = 0; text.length() < size; i++) {
            text.append(i == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(1000 + i % 37)
                    .append("\",\"quantity\":").append(i % 9 + 1).append('}');
        }
        return text.append("]}").toString();
    }

    @Test
    void largePayloadsAreCompressedSmallAndOldOnesAreNotAndAllAreReadAlike() {
        String large = json(10_000);
        client(PayloadForm.PLAIN, null).producer().send(OutgoingMessage.priority(TOPIC, large, 50).withKey("before"));
        RmqClient compressing = client(PayloadForm.PLAIN.withCompression(Compression.DEFLATE, 1024), null);
        compressing.producer().send(OutgoingMessage.priority(TOPIC, large, 50).withKey("large"));
        compressing.producer().send(OutgoingMessage.priority(TOPIC, "{\"small\":true}", 50).withKey("small"));

        assertThat(stored("before").length).isGreaterThan(10_000);
        assertThat(stored("large").length).as("the compressed envelope").isLessThan(2_500);
        StoredMessage shown = compressing.inspector().find(MessageRef.of(TOPIC, "large")).orElseThrow();
        assertThat(shown.headers()).containsEntry(PayloadForm.COMPRESSION_HEADER, "deflate");
        assertThat(shown.payloadText()).as("the inspector inflates").isEqualTo(large);
        assertThat(compressing.inspector().find(MessageRef.of(TOPIC, "small")).orElseThrow().headers())
                .doesNotContainKey(PayloadForm.COMPRESSION_HEADER);

        Map<String, String> handled = consume(compressing);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
        assertThat(handled).containsEntry("before", large).containsEntry("large", large)
                .containsEntry("small", "{\"small\":true}");
    }

    @Test
    void encryptedPayloadsAreUnreadableInRedisAndHiddenFromInspectionWhileHandlersReadThem() {
        PayloadKeyRing ring = PayloadKeyRing.builder().key("k1", KEY_1).build();
        RmqClient client = client(PayloadForm.PLAIN.withEncryption(true).withCompression(Compression.DEFLATE, 64), ring);
        String secret = "{\"iban\":\"DE89370400440532013000\",\"note\":\"" + "x".repeat(200) + "\"}";
        client.producer().send(OutgoingMessage.priority(TOPIC, secret, 50).withKey("inv-1"));

        assertThat(new String(stored("inv-1"), StandardCharsets.ISO_8859_1)).doesNotContain("DE89370400440532013000")
                .doesNotContain("xxxxxxxx");
        StoredMessage shown = client.inspector().find(MessageRef.of(TOPIC, "inv-1")).orElseThrow();
        assertThat(shown.encrypted()).isTrue();
        assertThat(shown.payload()).isEmpty();
        assertThat(shown.headers()).containsEntry(PayloadForm.KEY_HEADER, "k1")
                .containsEntry(PayloadForm.COMPRESSION_HEADER, "deflate");
        assertThat(ring.toString()).isEqualTo("PayloadKeyRing[ids=[k1], current=k1]")
                .doesNotContain(Base64.getEncoder().encodeToString(KEY_1));

        Map<String, String> handled = consume(client);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 1);
        assertThat(handled).containsEntry("inv-1", secret);
    }

    @Test
    void anEncryptedPayloadCopiedToAnotherMessageFailsItsTagAndWaitsInTheDeadQueue() {
        PayloadKeyRing ring = PayloadKeyRing.builder().key("k1", KEY_1).build();
        RmqClient client = client(PayloadForm.PLAIN.withEncryption(true), ring);
        client.producer().send(OutgoingMessage.priority(TOPIC, "pay 10 EUR", 50).withKey("a"));
        client.producer().send(OutgoingMessage.priority(TOPIC, "pay 9999 EUR", 50).withKey("b"));
        // someone who can write to Redis moves b's payload under a's key
        String body = new KeyLayout("").slot(TOPIC, 0).body();
        redisson.getMap(body, ByteArrayCodec.INSTANCE).put("a".getBytes(StandardCharsets.UTF_8), stored("b"));

        Map<String, String> handled = consume(client);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 1 && client.deadQueue().count(TOPIC) == 1);
        assertThat(handled).containsOnlyKeys("b");
        DeadMessage dead = client.deadQueue().list(TOPIC, 0, 0, 1).get(0);
        assertThat(dead.key()).isEqualTo("a");
        assertThat(dead.reason()).isEqualTo(DeadReason.UNDECRYPTABLE);
        assertThat(dead.lastError()).contains("fails its authentication");
    }

    @Test
    void equalPayloadsStillMergeWhenEncrypted() {
        TopicDefinition merged = TopicDefinition.builder("prices", TopicType.RANGE_MERGE).slotAmount(1)
                .payloadForm(PayloadForm.PLAIN.withEncryption(true)).build();
        RmqClient client = RmqClient.builder(redisson).topic(merged)
                .keyRing(PayloadKeyRing.builder().key("k1", KEY_1).build()).build();
        clients.add(client);
        client.producer().send(OutgoingMessage.rangeMerge("prices", "{\"sku\":1}", Duration.ofMinutes(1)));
        client.producer().send(OutgoingMessage.rangeMerge("prices", "{\"sku\":1}", Duration.ofMinutes(1)));
        assertThat(client.inspector().counts("prices").total().waiting()).isEqualTo(1);
    }

    @Test
    void aKeyRotatedInTheMiddleOfABacklogStillDecryptsAndAKeyDroppedTooEarlyLosesNothing() {
        PayloadForm encrypted = PayloadForm.PLAIN.withEncryption(true);
        RmqClient before = client(encrypted, PayloadKeyRing.builder().key("k1", KEY_1).build());
        for (int i = 0; i < 20; i++) {
            before.producer().send(OutgoingMessage.priority(TOPIC, "old-" + i, 50).withKey("old-" + i));
        }
        PayloadKeyRing rotated = PayloadKeyRing.builder().key("k1", KEY_1).key("k2", KEY_2).current("k2").build();
        RmqClient after = client(encrypted, rotated);
        for (int i = 0; i < 20; i++) {
            after.producer().send(OutgoingMessage.priority(TOPIC, "new-" + i, 50).withKey("new-" + i));
        }
        assertThat(after.inspector().find(MessageRef.of(TOPIC, "new-0")).orElseThrow().headers())
                .containsEntry(PayloadForm.KEY_HEADER, "k2");

        // a consumer whose ring lost k1 too early: the old half goes to the dead queue, unread and not lost
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        try {
            RmqClient early = client(encrypted, PayloadKeyRing.builder().key("k2", KEY_2).build());
            Map<String, String> handled = consume(early);
            await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 20
                    && early.deadQueue().count(TOPIC) == 20);
            assertThat(handled.values()).allMatch(text -> text.startsWith("new-"));
            DeadMessage dead = early.deadQueue().list(TOPIC, 0, 0, 1).get(0);
            assertThat(dead.reason()).isEqualTo(DeadReason.UNDECRYPTABLE);
            assertThat(dead.lastError()).contains("key 'k1', which the key ring [k2] no longer holds");
            assertThat(dead.encrypted()).isTrue();
            containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        } finally {
            root.detachAppender(logs);
        }
        String[] keyTexts = {Base64.getEncoder().encodeToString(KEY_1), Base64.getEncoder().encodeToString(KEY_2)};
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
                .noneMatch(line -> line.contains(keyTexts[0]) || line.contains(keyTexts[1]));

        // k1 is back in the ring: a requeue brings the old half to the handler
        Map<String, String> handled = consume(after);
        assertThat(after.deadQueue().requeueAll(TOPIC)).isEqualTo(20);
        await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 20);
        assertThat(handled.values()).allMatch(text -> text.startsWith("old-"));
    }

    @Test
    void anEncryptedTopicNeedsAKeyRingAndARingRefusesBadKeys() {
        assertThatThrownBy(() -> client(PayloadForm.PLAIN.withEncryption(true), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic 'invoices' encrypts its payloads, but the client has no key ring");
        assertThatThrownBy(() -> PayloadKeyRing.builder().key("k1", new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key 'k1' must be an AES key of 16, 24 or 32 bytes, was 15 bytes");
        assertThatThrownBy(() -> PayloadKeyRing.builder().base64Key("k1", "not base64!"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("key 'k1' is not base64")
                .hasMessageNotContaining("not base64!");
        assertThatThrownBy(() -> PayloadKeyRing.builder().key("k1", KEY_1).key("k2", KEY_2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the current key of a ring must be one of its ids [k1, k2], was not given");
        assertThatThrownBy(() -> PayloadForm.PLAIN.withCompression(Compression.DEFLATE, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("compressAbove must be 0 (never) or at least 64 bytes, was 10");
    }
}
