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

    private MessageKeys() {
    }

    public static String derive(byte[] payload) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(payload);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }
}
