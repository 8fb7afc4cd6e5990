package dev.rmq.payload;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.DeadReason;
import dev.rmq.codec.EncodedPayload;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.PreparedMessage;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Payloads whose shape changed while they waited: an application restarted on a newer version reads what an older
 * one sent, through its upcasters, and what no upcaster can read waits in the dead queue until one can.
 */
class PayloadVersionTests extends StandaloneRedisTest {

    /** The shape of version 0 (no header: sent before the topic had versions) and 1. */
    record OrderV1(String customer, int cents) {
    }

    /** Version 3: the customer split into first and last name (step 1 to 2), the amount renamed (2 to 3). */
    record OrderV3(String firstName, String lastName, int amountCents) {
    }

    private static final String TOPIC = "orders";
    private final List<RmqClient> clients = new ArrayList<>();
    private final List<RmqConsumerContainer<?>> containers = new ArrayList<>();

    @AfterEach
    void close() {
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        clients.forEach(RmqClient::close);
    }

    private static TopicDefinition topic(int version) {
        return TopicDefinition.builder(TOPIC, TopicType.PRIORITY).slotAmount(2).maxRetries(0)
                .payloadForm(PayloadForm.PLAIN.withVersion(version)).build();
    }

    private RmqClient client(int version, PayloadUpcaster... upcasters) {
        RmqClient.Builder builder = RmqClient.builder(redisson).topic(topic(version));
        for (PayloadUpcaster upcaster : upcasters) {
            builder.upcaster(upcaster);
        }
        RmqClient client = builder.build();
        clients.add(client);
        return client;
    }

    private static PayloadUpcaster splitName() {
        return PayloadUpcaster.of(TOPIC, 1, node -> {
            ObjectNode order = (ObjectNode) node;
            String[] name = order.remove("customer").asString().split(" ", 2);
            order.put("firstName", name[0]);
            order.put("lastName", name[1]);
            return order;
        });
    }

    private static PayloadUpcaster renameAmount() {
        return PayloadUpcaster.of(TOPIC, 2, node -> {
            ObjectNode order = (ObjectNode) node;
            order.set("amountCents", order.remove("cents"));
            return order;
        });
    }

    /** Version 0 and 1 share a shape: step 0 only says so. */
    private static PayloadUpcaster sameShape() {
        return PayloadUpcaster.typed(TOPIC, 0, OrderV1.class, order -> order);
    }

    private Map<String, OrderV3> consume(RmqClient client) {
        return Handled.consume(client, TOPIC, OrderV3.class, containers);
    }

    @Test
    void payloadsSentAtOlderVersionsAreHandledAsTheCurrentOneAfterARestart() {
        client(0).producer().send(OutgoingMessage.priority(TOPIC, new OrderV1("Grace Hopper", 700), 50).withKey("v0"));
        RmqClient v1 = client(1, sameShape());
        v1.producer().send(OutgoingMessage.priority(TOPIC, new OrderV1("Ada Lovelace", 1250), 50).withKey("v1"));
        assertThat(v1.inspector().find(MessageRef.of(TOPIC, "v1")).orElseThrow().headers())
                .containsEntry(PayloadForm.VERSION_HEADER, "1");
        assertThat(v1.inspector().find(MessageRef.of(TOPIC, "v0")).orElseThrow().headers())
                .doesNotContainKey(PayloadForm.VERSION_HEADER);

        // the application is deployed again at version 3, with the steps from 0, 1 and 2
        RmqClient v3 = client(3, sameShape(), splitName(), renameAmount());
        v3.producer().send(OutgoingMessage.priority(TOPIC, new OrderV3("Alan", "Turing", 99), 50).withKey("v3"));
        Map<String, OrderV3> handled = consume(v3);

        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
        assertThat(handled).containsEntry("v0", new OrderV3("Grace", "Hopper", 700))
                .containsEntry("v1", new OrderV3("Ada", "Lovelace", 1250))
                .containsEntry("v3", new OrderV3("Alan", "Turing", 99));
        assertThat(v3.deadQueue().count(TOPIC)).isZero();
    }

    @Test
    void aPayloadNoUpcasterReadsWaitsInTheDeadQueueWithItsBytesUntilARequeueAfterTheFix() {
        client(1).producer().send(OutgoingMessage.priority(TOPIC, new OrderV1("Ada Lovelace", 1250), 50).withKey("a"));

        // version 3 deployed with the step from 2 alone: version 1 cannot reach 3
        RmqClient broken = client(3, renameAmount());
        Map<String, OrderV3> handled = consume(broken);
        await().atMost(Duration.ofSeconds(10)).until(() -> broken.deadQueue().count(TOPIC) == 1);
        DeadMessage dead = broken.deadQueue().list(TOPIC, topic(3).slotOf("a"), 0, 10).get(0);
        assertThat(dead.reason()).isEqualTo(DeadReason.UNDECODABLE);
        assertThat(dead.lastError()).contains("needs an upcaster from version 1").contains("those from [2]");
        assertThat(dead.payloadText()).isEqualTo("{\"cents\":1250,\"customer\":\"Ada Lovelace\"}");
        assertThat(handled).isEmpty();
        containers.forEach(c -> c.stop(Duration.ofSeconds(5)));

        RmqClient fixed = client(3, splitName(), renameAmount());
        Map<String, OrderV3> handledAfterFix = consume(fixed);
        assertThat(fixed.deadQueue().requeue(TOPIC, topic(3).slotOf("a"), "a")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> handledAfterFix.size() == 1);
        assertThat(handledAfterFix).containsEntry("a", new OrderV3("Ada", "Lovelace", 1250));
    }

    @Test
    void aPayloadOfANewerVersionThanTheApplicationReadsIsNotGuessedAt() {
        client(3).producer().send(OutgoingMessage.priority(TOPIC, new OrderV3("Alan", "Turing", 99), 50).withKey("n"));
        RmqClient older = client(2, sameShape(), splitName());
        consume(older);
        await().atMost(Duration.ofSeconds(10)).until(() -> older.deadQueue().count(TOPIC) == 1);
        assertThat(older.deadQueue().list(TOPIC, topic(2).slotOf("n"), 0, 1).get(0).lastError())
                .contains("sent at version 3, newer than the version 2 this application reads");
    }

    @Test
    void upcastersThatCannotApplyAreRefusedWhenTheClientIsBuilt() {
        assertThatThrownBy(() -> client(2, renameAmount())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start from a version below the topic's current version 2, was 2");
        assertThatThrownBy(() -> client(3, splitName(), splitName())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two upcasters of topic 'orders' start from version 1");
        assertThatThrownBy(() -> client(3, PayloadUpcaster.of("invoices", 1, n -> n)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names a topic the client does not"
                        + " know; known: [orders]");
        assertThatThrownBy(() -> PayloadForm.PLAIN.withVersion(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a payload version must be in 0..1000000, was -1");
    }

    @Test
    void aSendMayDeclareAnOlderVersionOfItsPayloadAndHandlersSeeNoneOfRmqsHeaders() {
        RmqClient v3 = client(3, sameShape(), splitName(), renameAmount());
        v3.producer().send(OutgoingMessage.priority(TOPIC, new OrderV1("Ada Lovelace", 1250), 50).withKey("old")
                .withHeader(PayloadForm.VERSION_HEADER, "1").withHeader("tenant", "acme"));
        Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
        Map<String, OrderV3> handled = new ConcurrentHashMap<>();
        RmqConsumerContainer<OrderV3> container = v3.container(TOPIC, OrderV3.class, message -> {
            headers.put(message.key(), message.headers());
            handled.put(message.key(), message.payload());
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(50))).build();
        containers.add(container);
        container.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 1);
        assertThat(handled).containsEntry("old", new OrderV3("Ada", "Lovelace", 1250));
        assertThat(headers.get("old")).isEqualTo(Map.of("tenant", "acme"));
    }

    @Test
    void aMessagePreparedForLaterKeepsItsVersionAndIsUpcastWhenSentAfterTheVersionMovedOn() {
        PreparedMessage prepared = client(1, sameShape()).prepare(
                OutgoingMessage.priority(TOPIC, new OrderV1("Ada Lovelace", 1250), 50).withKey("kept"));
        assertThat(prepared.headers()).containsEntry(PayloadForm.VERSION_HEADER, "1");

        // as an outbox relays a row written before the application moved on to version 3
        RmqClient v3 = client(3, sameShape(), splitName(), renameAmount());
        v3.producer().send(OutgoingMessage.priority(TOPIC, new EncodedPayload(prepared.payload()), 50)
                .withKey(prepared.key()).withHeaders(prepared.headers()));
        Map<String, OrderV3> handled = consume(v3);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 1);
        assertThat(handled).containsEntry("kept", new OrderV3("Ada", "Lovelace", 1250));
    }

    @Test
    void aMessageCannotBringTheHeadersRmqWritesItselfNorAVersionItsTopicCannotHave() {
        RmqClient client = client(1);
        assertThatThrownBy(() -> client.producer().send(OutgoingMessage.priority(TOPIC, "x", 50)
                .withHeader(PayloadForm.VERSION_HEADER, "7"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header 'rmq-version' of a message of topic 'orders' must be the version of its payload,"
                        + " 0 to the topic's current 1, was '7'");
        assertThatThrownBy(() -> client.producer().send(OutgoingMessage.priority(TOPIC, "x", 50)
                .withHeader(PayloadForm.KEY_HEADER, "k1"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header 'rmq-key-id' is written by rmq itself");
        assertThat(client.inspector().counts(TOPIC).total().waiting()).isZero();
    }
}
