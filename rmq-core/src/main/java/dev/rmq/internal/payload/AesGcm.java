package dev.rmq.internal.payload;

import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.UndecryptablePayloadException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;

import static dev.rmq.codec.PayloadForm.COMPRESSION_HEADER;
import static dev.rmq.codec.PayloadForm.KEY_HEADER;
import static dev.rmq.codec.PayloadForm.VERSION_HEADER;

/**
 * AES-GCM with a random 96-bit nonce in front of the ciphertext and its 128-bit tag. The associated data binds the
 * payload to where it belongs: its topic, its message's key, and the headers that say how to read it (version,
 * compression, key id). A payload copied to another message, or whose headers were changed, fails its tag.
 */
final class AesGcm {

    static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private AesGcm() {
    }

    /** The associated data of a payload of {@code topic} under {@code key}, read from the headers it is stored with. */
    static byte[] associatedData(String topic, String key, Map<String, String> headers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + topic.length() + key.length());
        out.writeBytes("rmq-aad-1".getBytes(StandardCharsets.US_ASCII));
        for (String field : new String[] {topic, key, headers.getOrDefault(VERSION_HEADER, ""),
                headers.getOrDefault(COMPRESSION_HEADER, ""), headers.getOrDefault(KEY_HEADER, "")}) {
            // each field behind its length, so that no two different sets of fields give the same bytes
            byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
            out.write(bytes.length >>> 24);
            out.write(bytes.length >>> 16);
            out.write(bytes.length >>> 8);
            out.write(bytes.length);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    static byte[] encrypt(SecretKey key, byte[] associatedData, byte[] plain) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            // a Cipher per call: it holds no native state, and a pooled one would outlive virtual threads
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associatedData);
            byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + cipher.getOutputSize(plain.length));
            cipher.doFinal(plain, 0, plain.length, out, NONCE_BYTES);
            return out;
        } catch (GeneralSecurityException e) {
            // the exception names the algorithm's trouble, never the key
            throw new IllegalStateException("AES-GCM could not encrypt a payload: " + e.getClass().getSimpleName(), e);
        }
    }

    static byte[] decrypt(PayloadKeyRing ring, String keyId, byte[] associatedData, byte[] stored) {
        SecretKey key = ring.key(keyId).orElseThrow(() -> new UndecryptablePayloadException("payload is encrypted"
                + " with key '" + keyId + "', which the key ring " + ring.ids() + " no longer holds", null));
        if (stored.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new UndecryptablePayloadException("encrypted payload of " + stored.length + " bytes is shorter than"
                    + " its nonce and tag", null);
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
            cipher.updateAAD(associatedData);
            return cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES);
        } catch (AEADBadTagException e) {
            throw new UndecryptablePayloadException("encrypted payload fails its authentication with key '" + keyId
                    + "': it or its headers were changed, it was encrypted for another message, or with another key"
                    + " under that id", e);
        } catch (GeneralSecurityException e) {
            throw new UndecryptablePayloadException("encrypted payload cannot be decrypted with key '" + keyId + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }
}
