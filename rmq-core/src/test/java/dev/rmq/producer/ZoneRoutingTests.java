package dev.rmq.producer;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.TopicZones;
import dev.rmq.topic.ZoneRouting;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Producers of two zones on a real Redis: where their messages land, and what that does to merging. */
class ZoneRoutingTests extends StandaloneRedisTest {

    private static final TopicDefinition BY_ZONE = TopicDefinition.builder("by-zone", TopicType.PRIORITY)
            .slotAmount(8).zones("a", "b").build();
    private static final TopicDefinition BY_BASIS = TopicDefinition.builder("by-basis", TopicType.PRIORITY)
            .slotAmount(8).zones(TopicZones.of(List.of("a", "b"), ZoneRouting.BASIS)).build();

    @Test
    void aProducerSendsToItsOwnZonesSlotsAndOneKeyFromTwoZonesIsTwoMessages() {
        try (RmqClient fromA = client("a"); RmqClient fromB = client("b")) {
            for (int i = 0; i < 50; i++) {
                SendReceipt receipt = fromA.producer().send(OutgoingMessage.priority(BY_ZONE.name(), "x", 100)
                        .withKey("k" + i));
                assertThat(BY_ZONE.zones().zoneOf(receipt.slot())).isEqualTo("a");
            }
            TopicCounts counts = fromA.inspector().counts(BY_ZONE.name());
            assertThat(counts.zones().get("a").waiting()).isEqualTo(50);
            assertThat(counts.zones().get("b").waiting()).isZero();

            SendReceipt again = fromB.producer().send(OutgoingMessage.priority(BY_ZONE.name(), "x", 200).withKey("k1"));
            assertThat(again.merged()).as("sent from zone b, it lands in zone b's slots").isFalse();
            assertThat(fromB.producer().get(MessageRef.of(BY_ZONE.name(), "k1"))).get()
                    .extracting(StoredMessage::score).isEqualTo(200.0);
            assertThat(fromB.producer().get(MessageRef.of(BY_ZONE.name(), "k1").withZone("a"))).get()
                    .extracting(StoredMessage::score).isEqualTo(100.0);
        }
    }

    @Test
    void basisRoutingMergesOneKeyWhicheverZoneSendsIt() {
        try (RmqClient fromA = client("a"); RmqClient fromB = client("b")) {
            SendReceipt first = fromA.producer().send(OutgoingMessage.priority(BY_BASIS.name(), "x", 100).withKey("k"));
            SendReceipt second = fromB.producer().send(OutgoingMessage.priority(BY_BASIS.name(), "x", 200).withKey("k"));
            assertThat(second.merged()).isTrue();
            assertThat(second.slot()).isEqualTo(first.slot());
            assertThat(fromA.inspector().counts(BY_BASIS.name()).total().waiting()).isEqualTo(1);
        }
    }

    private static RmqClient client(String zone) {
        return RmqClient.builder(redisson).topics(List.of(BY_ZONE, BY_BASIS)).zone(zone).build();
    }
}
