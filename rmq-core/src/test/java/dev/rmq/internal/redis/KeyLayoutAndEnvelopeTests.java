package dev.rmq.internal.redis;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyLayoutAndEnvelopeTests {

    @Test
    void aStoredEnvelopeKeepsItsLastErrorCutAtACharacterBoundaryAsTheScriptsCutIt() {
        byte[] stored = Envelope.encodeStored(2, 40, 0, 0, "boom", Map.of("h", "v"), "p".getBytes(StandardCharsets.UTF_8));
        Envelope read = Envelope.decode(stored);
        assertThat(read.attempts()).isEqualTo(2);
        assertThat(read.lastError()).isEqualTo("boom");
        assertThat(read.deadReason()).isEmpty();
        assertThat(read.headers()).containsEntry("h", "v");

        String longError = "é".repeat(700);
        Envelope cut = Envelope.decode(Envelope.encodeStored(1, 40, 0, 0, longError, Map.of(), new byte[0]));
        assertThat(cut.lastError().getBytes(StandardCharsets.UTF_8)).hasSize(Envelope.MAX_ERROR_BYTES);
        assertThat(longError).startsWith(cut.lastError());
    }

    @Test
    void namesEveryKeyOfASlotAroundOneHashTagAfterThePrefix() {
        SlotKeys keys = new KeyLayout("").slot("orders", 3);
        assertThat(keys.store()).isEqualTo("rmq:{orders_3}");
        assertThat(keys.prepare()).isEqualTo("rmq:prepare{orders_3}");
        assertThat(keys.dead()).isEqualTo("rmq:dead{orders_3}");
        assertThat(keys.hashTag()).isEqualTo("orders_3");
        assertThat(keys.asScriptKeys(new int[] {0, 1}, "c1")).containsExactly("rmq:{orders_3}", "rmq:body{orders_3}",
                "rmq:call{orders_3}:c1");
        assertThat(keys.asScriptKeys()).hasSize(SlotKeys.NAMES.size()).doesNotHaveDuplicates().allSatisfy(k -> {
            String key = (String) k;
            assertThat(key.startsWith("rmq:") && key.endsWith("{orders_3}")).as(key).isTrue();
        });
    }

    @Test
    void withoutAPrefixNamesTheKeysAsRmqDidBeforeTheyHadOne() {
        SlotKeys keys = new KeyLayout(KeyLayout.LEGACY_PREFIX, "shop").slot("orders", 3);
        assertThat(keys.store()).isEqualTo("shop:orders_3");
        assertThat(keys.body()).isEqualTo("body{shop:orders_3}");
        assertThat(keys.asScriptKeys(new int[] {0}, "c1")).containsExactly("shop:orders_3", "call{shop:orders_3}:c1");
        assertThat(new KeyLayout("x", "shop").withoutPrefix().slot("orders", 3)).isEqualTo(keys);
    }

    @Test
    void putsTheNamespaceInsideTheHashTag() {
        KeyLayout layout = new KeyLayout("shop");
        SlotKeys keys = layout.slot("orders", 0);
        assertThat(keys.store()).isEqualTo("rmq:{shop:orders_0}");
        assertThat(keys.body()).isEqualTo("rmq:body{shop:orders_0}");
        assertThat(layout.wakeChannel("orders")).isEqualTo("rmq:wake:shop:orders");
        assertThat(layout.rateBucket("orders")).isEqualTo("rmq:rate{shop:orders}");
        assertThat(new KeyLayout("acme", "shop").slot("orders", 0).store()).isEqualTo("acme:{shop:orders_0}");
    }

    @Test
    void makesASlotsKeysOnceWhateverOrderTheSlotsAreAskedIn() {
        KeyLayout layout = new KeyLayout("shop");
        int[] asked = {5, 2, 40, 0, 2, 1000, 5};
        for (int slot : asked) {
            SlotKeys keys = layout.slot("orders", slot);
            assertThat(keys.store()).isEqualTo("rmq:{shop:orders_" + slot + "}");
            assertThat(keys.slot()).isEqualTo(slot);
            assertThat(layout.slot("orders", slot)).as("slot %d asked again", slot).isSameAs(keys);
        }
        assertThat(layout.slot("invoices", 5).store()).isEqualTo("rmq:{shop:invoices_5}");
        assertThat(new KeyLayout("other").slot("orders", 5).store()).isEqualTo("rmq:{other:orders_5}");
        assertThatIllegalArgumentException().isThrownBy(() -> layout.slot("orders", -1))
                .withMessageContaining("slot must be 0 or more, was -1");
    }

    @Test
    void refusesANamespaceOrPrefixThatWouldBreakTheHashTag() {
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout("a}b"))
                .withMessageContaining("namespace 'a}b' is invalid");
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout(null))
                .withMessageContaining("namespace must not be null");
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyLayout("a{", ""))
                .withMessageContaining("key prefix 'a{' is invalid");
    }

    @Test
    void anEnvelopeIsTheBytesTheScriptsRead() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("trace", "é1");
        // version 2, flags 3 (expiry, not-before), attempts 3, score 12.5, the two times, the error, one header,
        // the payload: as the scripts and every stored envelope read them
        assertThat(HexFormat.of().formatHex(Envelope.encodeStored(3, 12.5, 1_700_000_000_123L, 1_700_000_000_456L,
                "boom", headers, new byte[] {1, 2, 3}))).isEqualTo("020300034029000000000000" + "4278bcfe5687b000"
                + "4278bcfe569c8000" + "0004626f6f6d" + "01" + "05747261636503c3a931" + "010203");
        assertThat(HexFormat.of().formatHex(Envelope.encodeNew(Map.of(), new byte[] {9}, 7, 0, 0)))
                .isEqualTo("02000000401c000000000000" + "0000" + "00" + "09");
    }

    @Test
    void envelopeRoundTripsHeadersAndPayload() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("trace", "abc");
        headers.put("ünï", "{}\u0000");
        // lengths of two and three varint bytes
        headers.put("long", "é".repeat(100));
        headers.put("x".repeat(20_000), "");
        byte[] payload = {0, 1, 2, (byte) 0xFF};
        byte[] encoded = Envelope.encodeNew(headers, payload, 0, 0, 0);
        Envelope decoded = Envelope.decode(encoded);
        assertThat(Envelope.header(encoded, "long")).isEqualTo("é".repeat(100));
        assertThat(decoded.attempts()).isZero();
        assertThat(decoded.lastError()).isEmpty();
        assertThat(decoded.expireAt()).isZero();
        assertThat(decoded.notBefore()).isZero();
        assertThat(decoded.headers()).containsExactlyEntriesOf(headers);
        assertThat(decoded.payload()).containsExactly(payload);
    }

    @Test
    void aSendsEnvelopeCarriesItsTimeToLiveAndNotBeforeTimeForTheScriptToMakeAbsolute() {
        byte[] sent = Envelope.encodeNew(Map.of(), new byte[] {1}, 0, 5_000, -250);
        assertThat(sent[1]).as("flags: expires, not before").isEqualTo((byte) 3);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(sent, 12, 16);
        assertThat(in.getDouble()).isEqualTo(5_000);
        assertThat(in.getDouble()).isEqualTo(-250);
        assertThat(Envelope.encodeNew(Map.of(), new byte[] {1}, 0, 0, 0)[1]).as("no control").isZero();
    }

    @Test
    void envelopeReadsTheOptionalTimesTheScriptsWrite() {
        byte[] content = content(Map.of("h", "v"), new byte[] {7});
        Envelope both = Envelope.decode(stored(1_700_000_000_000L, 1_700_000_005_000L, 3, "boom", content));
        assertThat(both.expireAt()).isEqualTo(1_700_000_000_000L);
        assertThat(both.notBefore()).isEqualTo(1_700_000_005_000L);
        assertThat(both.attempts()).isEqualTo(3);
        assertThat(both.lastError()).isEqualTo("boom");
        assertThat(both.payload()).containsExactly(7);
        Envelope notBeforeOnly = Envelope.decode(stored(0, 42, 0, "", content));
        assertThat(notBeforeOnly.expireAt()).isZero();
        assertThat(notBeforeOnly.notBefore()).isEqualTo(42);
    }

    @Test
    void oneHeaderIsReadWithoutDecodingTheRestWhateverOptionalFieldsComeBeforeIt() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("first", "1");
        headers.put("wanted", "it");
        byte[] content = content(headers, new byte[] {7, 8});
        for (byte[] envelope : new byte[][] {stored(1_700_000_000_000L, 42, 3, "boom", content),
                stored(0, 0, 1, "", content), Envelope.encodeNew(headers, new byte[] {7}, 0, 5_000, -10)}) {
            assertThat(Envelope.header(envelope, "wanted")).isEqualTo("it");
            assertThat(Envelope.header(envelope, "first")).isEqualTo("1");
            assertThat(Envelope.header(envelope, "absent")).isNull();
        }
        byte[] truncated = stored(0, 0, 0, "", content);
        assertThat(Envelope.header(java.util.Arrays.copyOf(truncated, truncated.length - 6), "wanted"))
                .as("cut inside its headers: no header, and decoding reports it").isNull();
        assertThat(Envelope.header(new byte[] {1, 2}, "wanted")).isNull();
    }

    /** The content (headers and payload) of an envelope Java writes, cut out of it. */
    private static byte[] content(Map<String, String> headers, byte[] payload) {
        byte[] sent = Envelope.encodeNew(headers, payload, 0, 0, 0);
        return java.util.Arrays.copyOfRange(sent, 14, sent.length);
    }

    /**
     * An envelope as lib.lua writes it on a FIFO topic: version 2, flags, attempts, score, the 8-byte place, the
     * optional times, the error, then the content.
     */
    private static byte[] stored(long expireAt, long notBefore, int attempts, String error, byte[] content) {
        byte[] err = error.getBytes(StandardCharsets.UTF_8);
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(20 + 16 + 2 + err.length + content.length);
        int flags = 4 | (expireAt > 0 ? 1 : 0) | (notBefore > 0 ? 2 : 0);
        out.put((byte) 2).put((byte) flags).putShort((short) attempts).putDouble(100).putLong(12345);
        if (expireAt > 0) {
            out.putDouble(expireAt);
        }
        if (notBefore > 0) {
            out.putDouble(notBefore);
        }
        out.putShort((short) err.length).put(err).put(content);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    @Test
    void refusesBytesThatAreNotAnEnvelope() {
        assertThatThrownBy(() -> Envelope.decode(new byte[] {1, 2}))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("shorter than its 14-byte header");
        byte[] wrongVersion = Envelope.encodeNew(Map.of(), new byte[0], 0, 0, 0);
        wrongVersion[0] = 9;
        assertThatThrownBy(() -> Envelope.decode(wrongVersion))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("version 9 is not supported");
        byte[] truncated = stored(0, 0, 0, "", content(Map.of("name", "value"), new byte[0]));
        assertThatThrownBy(() -> Envelope.decode(java.util.Arrays.copyOf(truncated, truncated.length - 2)))
                .isInstanceOf(MalformedEnvelopeException.class).hasMessageContaining("truncated or corrupt");
    }
}
