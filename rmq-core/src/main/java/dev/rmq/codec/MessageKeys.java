package dev.rmq.codec;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Derives the default merge key of a message from its payload bytes: the first 128 bits of their
 * SHA-256, in unpadded base64url (22 characters). Equal payloads get equal keys and so merge; a
 * cryptographic hash keeps crafted payloads from colliding with others.
 */
public final class MessageKeys {

    /**
     * Each thread's SHA-256: {@link MessageDigest#getInstance} looks its provider up and makes the digest by
     * reflection, which cost a send without a key more than hashing its payload did. {@link MessageDigest#digest}
     * leaves the digest reset for the next payload.
     */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    });
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private MessageKeys() {
    }

    public static String derive(byte[] payload) {
        return BASE64URL.encodeToString(Arrays.copyOf(SHA_256.get().digest(payload), 16));
    }
}
