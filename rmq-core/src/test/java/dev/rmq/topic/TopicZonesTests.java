package dev.rmq.topic;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TopicZonesTests {

    private static final TopicDefinition ZONED = TopicDefinition.builder("zoned", TopicType.PRIORITY).slotAmount(16)
            .zones("eu-1", "eu-2", "eu-3").build();

    @Test
    void slotsGoToZonesInTurnAndASenderKeepsToItsOwnZone() {
        assertThat(ZONED.zones().zoneOf(0)).isEqualTo("eu-1");
        assertThat(ZONED.zones().zoneOf(4)).isEqualTo("eu-2");
        assertThat(ZONED.zones().zoneOf(15)).isEqualTo("eu-1");
        Set<Integer> fromEu2 = new HashSet<>();
        Set<Integer> fromNowhere = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            fromEu2.add(ZONED.slotOf("basis-" + i, "eu-2"));
            fromNowhere.add(ZONED.slotOf("basis-" + i, null));
        }
        assertThat(fromEu2).as("every slot of eu-2, and only those").containsExactlyInAnyOrder(1, 4, 7, 10, 13);
        assertThat(fromNowhere).hasSize(16);
        assertThat(ZONED.slotOf("order-42", "eu-2")).as("one basis, one slot within a zone")
                .isEqualTo(ZONED.slotOf("order-42", "eu-2"));
        assertThat(ZONED.slotOf("order-42", "elsewhere")).as("a zone the topic does not have routes by the basis")
                .isEqualTo(ZONED.slotOf("order-42"));
        assertThat(ZONED.zones().isLocal(4, "eu-2")).isTrue();
        assertThat(ZONED.zones().isLocal(5, "eu-2")).isFalse();
        assertThat(ZONED.zones().isLocal(5, null)).isTrue();
    }

    @Test
    void basisRoutingKeepsOneSlotPerKeyWhereverItIsSentFrom() {
        TopicDefinition byBasis = ZONED.toBuilder().zones(TopicZones.of(List.of("eu-1", "eu-2"), ZoneRouting.BASIS))
                .build();
        for (int i = 0; i < 100; i++) {
            assertThat(byBasis.slotOf("k" + i, "eu-1")).isEqualTo(byBasis.slotOf("k" + i, "eu-2"))
                    .isEqualTo(byBasis.slotOf("k" + i));
        }
        assertThat(byBasis.controls()).contains("zones=[eu-1, eu-2]/BASIS");
        assertThat(byBasis).isNotEqualTo(ZONED);
    }

    @Test
    void badZonesAreRefusedWithWhatIsAllowed() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY)
                .slotAmount(2).zones("a", "b", "c").build()).withMessageContaining("each zone needs at least one slot");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicZones.of(Arrays.asList("a", "a"), ZoneRouting.SENDER_ZONE))
                .withMessageContaining("listed twice");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicZones.of(Arrays.asList("eu 1"), ZoneRouting.SENDER_ZONE))
                .withMessageContaining("zone name 'eu 1' is invalid");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicZones.of(Arrays.asList("a~b"), ZoneRouting.SENDER_ZONE))
                .withMessageContaining("'~'");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY)
                .zones((String) null).build()).withMessageContaining("zone name null");
    }
}
