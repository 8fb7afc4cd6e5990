package dev.rmq.topic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TopicDefinitionTests {

    @Test
    void buildsWithDefaults() {
        TopicDefinition topic = TopicDefinition.builder("orders", TopicType.FIXED_TIME).build();
        assertThat(topic.slotAmount()).isEqualTo(16);
        assertThat(topic.maxRetries()).isEqualTo(16);
        assertThat(topic.leaseTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(topic.backoff()).isEqualTo(BackoffPolicy.DEFAULT);
    }

    @Test
    void definitionsBuiltAlikeAreEqualWithOneHashAndAControlTellsThemApart() {
        TopicDefinition one = TopicDefinition.builder("orders", TopicType.PRIORITY).maxRetries(3).fifo(true).build();
        TopicDefinition same = TopicDefinition.builder("orders", TopicType.PRIORITY).maxRetries(3).fifo(true).build();
        TopicDefinition other = TopicDefinition.builder("orders", TopicType.PRIORITY).maxRetries(3).build();
        assertThat(same).isEqualTo(one).hasSameHashCodeAs(one);
        assertThat(other).isNotEqualTo(one);
        assertThat(other.hashCode()).isNotEqualTo(one.hashCode());
    }

    @Test
    void refusesANameWithBraces() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("a{b}", TopicType.PRIORITY).build())
                .withMessageContaining("topic name 'a{b}' is invalid").withMessageContaining("brace");
    }

    @Test
    void refusesANameWithSpaces() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("price change", TopicType.PRIORITY).build())
                .withMessageContaining("whitespace at index 5");
    }

    @Test
    void refusesAnEmptyOrNullName() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("", TopicType.PRIORITY).build())
                .withMessageContaining("it is empty");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder(null, TopicType.PRIORITY).build())
                .withMessageContaining("topic name null is invalid");
    }

    @Test
    void refusesOtherCharactersAndSaysWhatIsAllowed() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("prices/eu", TopicType.PRIORITY).build())
                .withMessageContaining("character '/' at index 6").withMessageContaining("allowed are");
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder("-x", TopicType.PRIORITY).build())
                .withMessageContaining("must start with a letter or digit");
    }

    @Test
    void refusesAMissingType() {
        assertThatIllegalArgumentException().isThrownBy(() -> TopicDefinition.builder().name("t").build())
                .withMessageContaining("needs a type");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -4, 3, 12, 100, 32768, 16385})
    void refusesASlotAmountThatIsNotAPowerOfTwoInRange(int slots) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("t", TopicType.RANGE_MERGE).slotAmount(slots).build())
                .withMessage("slotAmount of topic 't' must be a power of two in 1..16384 (1, 2, 4, 8, ...), was " + slots);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 1024, 16384})
    void acceptsPowersOfTwoInRange(int slots) {
        assertThat(TopicDefinition.builder("t", TopicType.RANGE_MERGE).slotAmount(slots).build().slotAmount()).isEqualTo(slots);
    }

    @Test
    void refusesNonPositiveDurations() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY).leaseTimeout(Duration.ZERO).build())
                .withMessageContaining("lease timeout of topic 't' must be at least 1 ms, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY).leaseTimeout(Duration.ofSeconds(-1)).build())
                .withMessageContaining("must be at least 1 ms");
        assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.fixed(Duration.ZERO))
                .withMessageContaining("backoff initial delay must be at least 1 ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> BackoffPolicy.exponential(Duration.ofSeconds(10), Duration.ofSeconds(1)))
                .withMessageContaining("must not be shorter than the initial delay");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new BackoffPolicy(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(2), 0))
                .withMessageContaining("multiplier must be a finite number of at least 1");
        assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.DEFAULT.withJitter(1.0))
                .withMessageContaining("jitter must be in [0, 1)");
    }

    @Test
    void refusesNegativeRetriesAndDeadCapacity() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY).maxRetries(-1).build())
                .withMessageContaining("maxRetries of topic 't' must be in 0..65000, was -1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TopicDefinition.builder("t", TopicType.PRIORITY).deadCapacity(-1).build())
                .withMessageContaining("deadCapacity of topic 't'");
    }

    @Test
    void routesByCrc32OfTheUtf8BytesModuloTheSlotAmount() {
        // zlib.crc32(b"hello") == 0x3610a686 == 907060870
        assertThat(SlotRouter.slotOf("hello", 16384)).isEqualTo((int) (907060870L % 16384));
        assertThat(SlotRouter.slotOf("hello", 16)).isEqualTo(6);
        assertThat(SlotRouter.slotOf("hello", 1)).isZero();
        // zlib.crc32("é".encode("utf-8")) == 0x0e048d3e (uses the UTF-8 bytes c3 a9)
        assertThat(SlotRouter.slotOf("é", 1024)).isEqualTo((int) (0x0e048d3eL % 1024));
    }

    @Test
    void registryRefusesConflictingDefinitionsNamingBoth() {
        TopicDefinition a = TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(8).build();
        TopicDefinition b = TopicDefinition.builder("orders", TopicType.PRIORITY).slotAmount(8).build();
        assertThatIllegalArgumentException().isThrownBy(() -> TopicRegistry.of(List.of(a, b)))
                .withMessageContaining("topic 'orders' is defined twice, differently")
                .withMessageContaining("FIXED_TIME").withMessageContaining("PRIORITY");
        assertThat(TopicRegistry.of(a, a).all()).containsExactly(a);
    }

    @Test
    void registryNamesTheKnownTopicsForAnUnknownOne() {
        TopicRegistry registry = TopicRegistry.of(TopicDefinition.builder("orders", TopicType.FIXED_TIME).build());
        assertThatIllegalArgumentException().isThrownBy(() -> registry.require("order"))
                .isInstanceOf(UnknownTopicException.class)
                .withMessage("unknown topic 'order'; defined topics are [orders]");
        assertThatIllegalArgumentException().isThrownBy(() -> registry.require("orders", TopicType.PRIORITY))
                .withMessage("topic 'orders' is a FIXED_TIME topic; a PRIORITY message cannot be sent to it");
    }
}
