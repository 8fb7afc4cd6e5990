package dev.rmq.server;

import dev.rmq.pull.DeliveryRef;
import dev.rmq.server.pull.DeliveryTokens;
import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What a token carries, and that nothing but the key it was signed with reads it back. */
class DeliveryTokensTests {

    private static final String SECRET = "a shared key of at least thirty-two bytes";
    private static final DeliveryRef REF = new DeliveryRef("orders", 513, "order/42 ä", 1_780_000_000_123_456L);

    @Test
    void anotherServerWithTheSharedKeyReadsWhatTheTokenNames() {
        String token = DeliveryTokens.shared(SECRET).issue(REF);

        assertThat(DeliveryTokens.shared(SECRET).read(token)).isEqualTo(REF);
        assertThat(token).matches("[A-Za-z0-9_-]+").as("safe in a URL path as it is");
    }

    @Test
    void aTokenSignedWithAnotherKeyOrAlteredInAnyByteIsNotRead() {
        DeliveryTokens tokens = DeliveryTokens.shared(SECRET);
        String token = tokens.issue(REF);
        byte[] bytes = Base64.getUrlDecoder().decode(token);

        assertThat(DeliveryTokens.shared(SECRET + "!").read(token)).isNull();
        assertThat(DeliveryTokens.local().read(token)).isNull();
        for (int i = 0; i < bytes.length; i++) {
            byte[] altered = bytes.clone();
            altered[i] ^= 1;
            assertThat(tokens.read(Base64.getUrlEncoder().withoutPadding().encodeToString(altered)))
                    .as("byte %d altered", i).isNull();
        }
        assertThat(tokens.read("not base64 at all!")).isNull();
        assertThat(tokens.read(tokens.random())).isNull();
        assertThat(tokens.read("")).isNull();
    }

    @Test
    void anExtensionGivesAnotherToken() {
        DeliveryTokens tokens = DeliveryTokens.shared(SECRET);
        DeliveryRef extended = new DeliveryRef(REF.topic(), REF.slot(), REF.key(), REF.lease() + 60_000_000);

        assertThat(tokens.issue(extended)).isNotEqualTo(tokens.issue(REF));
        assertThat(tokens.read(tokens.issue(extended))).isEqualTo(extended);
    }

    @Test
    void aShortSecretIsRefusedSayingWhatIsNeeded() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeliveryTokens.shared("too short"))
                .withMessageContaining("at least 32 bytes").withMessageContaining("held 9");
        assertThat(DeliveryTokens.shared(SECRET).shared()).isTrue();
        assertThat(DeliveryTokens.local().shared()).isFalse();
    }
}
