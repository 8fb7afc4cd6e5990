package dev.rmq.internal.payload;

import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.UndecryptablePayloadException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * AES-GCM with a random 96-bit nonce in front of the ciphertext and its 128-bit tag. The topic's name is the
 * associated data, so a payload copied into another topic fails its tag rather than being read there.
 */
final class AesGcm {

    static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM is required by the Java platform", e);
        }
    });

    private AesGcm() {
    }

    static byte[] encrypt(SecretKey key, String topic, byte[] plain) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(topic.getBytes(StandardCharsets.UTF_8));
            byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + cipher.getOutputSize(plain.length));
            cipher.doFinal(plain, 0, plain.length, out, NONCE_BYTES);
            return out;
        } catch (GeneralSecurityException e) {
            // the exception names the algorithm's trouble, never the key
            throw new IllegalStateException("AES-GCM could not encrypt a payload of topic '" + topic + "': " + e, e);
        }
    }

    static byte[] decrypt(PayloadKeyRing ring, String keyId, String topic, byte[] stored) {
        SecretKey key = ring.key(keyId).orElseThrow(() -> new UndecryptablePayloadException("payload is encrypted"
                + " with key '" + keyId + "', which the key ring " + ring.ids() + " no longer holds", null));
        if (stored.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new UndecryptablePayloadException("encrypted payload of " + stored.length + " bytes is shorter than"
                    + " its nonce and tag", null);
        }
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
            cipher.updateAAD(topic.getBytes(StandardCharsets.UTF_8));
            return cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES);
        } catch (AEADBadTagException e) {
            throw new UndecryptablePayloadException("encrypted payload fails its authentication with key '" + keyId
                    + "': it was changed, or encrypted for another topic or with another key under that id", e);
        } catch (GeneralSecurityException e) {
            throw new UndecryptablePayloadException("encrypted payload cannot be decrypted with key '" + keyId + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }
}
