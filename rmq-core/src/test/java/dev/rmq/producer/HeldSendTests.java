package dev.rmq.producer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Sends held until the unit of work around them commits send what was sent, whatever the caller does meanwhile. */
class HeldSendTests extends StandaloneRedisTest {

    private static final TopicDefinition TOPIC = TopicDefinition.builder("held", TopicType.PRIORITY).slotAmount(4)
            .build();

    private final TransactionLike hold = new TransactionLike();
    private RmqClient rmq;

    @AfterEach
    void close() {
        rmq.close();
    }

    private RmqProducer producer() {
        rmq = RmqClient.builder(redisson).topic(TOPIC).sendHold(hold).build();
        return rmq.producer();
    }

    @Test
    void aListTheCallerReusesForEachBatchSendsEveryBatchOnce() {
        RmqProducer producer = producer();
        hold.begin();
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 2; i++) {
                batch.add(OutgoingMessage.priority(TOPIC.name(), "m", 50).withKey("r" + round + "-" + i));
            }
            assertThat(producer.sendAll(batch)).extracting(SendReceipt::outcome)
                    .containsOnly(SendReceipt.Outcome.DEFERRED);
            batch.clear();
        }
        // the commit starts the sends
        hold.commit();

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(rmq.inspector().peek(TOPIC.name(), 0, 100))
                .extracting(StoredMessage::key)
                .containsExactlyInAnyOrder("r0-0", "r0-1", "r1-0", "r1-1", "r2-0", "r2-1"));
    }

    @Test
    void aPayloadChangedAfterTheSendIsSentAsItWasUnderTheKeyTheReceiptNamed() {
        RmqProducer producer = producer();
        hold.begin();
        Map<String, String> order = new HashMap<>(Map.of("state", "new"));
        SendReceipt receipt = producer.send(OutgoingMessage.priority(TOPIC.name(), order, 50));
        order.put("state", "changed");
        hold.commit();

        StoredMessage stored = await().atMost(Duration.ofSeconds(5)).until(
                () -> rmq.inspector().find(MessageRef.of(TOPIC.name(), receipt.key())), found -> found.isPresent())
                .orElseThrow();
        assertThat(stored.payloadText()).contains("\"new\"").doesNotContain("changed");
        assertThat(rmq.inspector().peek(TOPIC.name(), 0, 100)).hasSize(1);
    }
}
