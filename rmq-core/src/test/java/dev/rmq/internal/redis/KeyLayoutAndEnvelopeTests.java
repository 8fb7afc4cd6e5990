package dev.rmq.internal.redis;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyLayoutAndEnvelopeTests {

    @Test
    void namesEveryKeyOfASlotAroundOneHashTag() {
        SlotKeys keys = new KeyLayout("").slot("orders", 3);
        assertThat(keys.store()).isEqualTo("orders_3");
        assertThat(keys.prepare()).isEqualTo("prepare{orders_3}");
        assertThat(keys.dead()).isEqualTo("dead{orders_3}");
        assertThat(keys.asScriptKeys()).hasSize(9).allSatisfy(k -> {
            String key = (String) k;
            assertThat(key.equals("orders_3") || key.endsWith("{orders_3}")).as(key).isTrue();
        });
    }

    @Test
    void prefixesTheNamespaceInsideTheHashTag() {
        SlotKeys keys = new KeyLayout("shop").slot("orders", 0);
        assertThat(keys.store()).isEqualTo("shop:orders_0");
        assertThat(keys.body()).isEqualTo("body{shop:orders_0}");
        assertThat(new KeyLayout("shop").wakeChannel("orders")).isEqualTo("rmq:wake:shop:orders");
    }

    @Test
    void refusesANamespaceThatWouldBreakTheHashTag() {
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout("a}b"))
                .withMessageContaining("namespace 'a}b' is invalid");
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout(null))
                .withMessageContaining("namespace must not be null");
    }

    @Test
    void envelopeRoundTripsHeadersAndPayload() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("trace", "abc");
        headers.put("ünï", "{}\u0000");
        byte[] payload = {0, 1, 2, (byte) 0xFF};
        Envelope decoded = Envelope.decode(Envelope.encodeNew(headers, payload));
        assertThat(decoded.attempts()).isZero();
        assertThat(decoded.lastError()).isEmpty();
        assertThat(decoded.headers()).containsExactlyEntriesOf(headers);
        assertThat(decoded.payload()).containsExactly(payload);
    }

    @Test
    void refusesBytesThatAreNotAnEnvelope() {
        assertThatThrownBy(() -> Envelope.decode(new byte[] {1, 2}))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("shorter than its 13-byte header");
        byte[] wrongVersion = Envelope.encodeNew(Map.of(), new byte[0]);
        wrongVersion[0] = 9;
        assertThatThrownBy(() -> Envelope.decode(wrongVersion))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("version 9 is not supported");
        byte[] truncated = Envelope.encodeNew(Map.of("name", "value"), new byte[0]);
        assertThatThrownBy(() -> Envelope.decode(java.util.Arrays.copyOf(truncated, truncated.length - 2)))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("truncated or corrupt");
    }
}
