package dev.rmq.codec;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class MessageKeysTests {

    @Test
    void theDefaultKeyIsTheFirst128BitsOfThePayloadsSha256InBase64Url() {
        assertThat(MessageKeys.derive("abc".getBytes(StandardCharsets.UTF_8))).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
        assertThat(MessageKeys.derive(new byte[0])).isEqualTo("47DEQpj8HBSa-_TImW-5JA");
        assertThat(MessageKeys.derive("x".repeat(1000).getBytes(StandardCharsets.UTF_8)))
                .as("the digest is reset between payloads").isEqualTo("RPg1RJSlugO6F5Ko0-nFNA");
        assertThat(MessageKeys.derive("abc".getBytes(StandardCharsets.UTF_8))).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
    }
}
