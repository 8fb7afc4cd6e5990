package dev.rmq.codec;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Derives the default merge key of a message from its payload bytes: the first 128 bits of their
 * SHA-256, in unpadded base64url (22 characters). Equal payloads get equal keys and so merge; a
 * cryptographic hash keeps crafted payloads from colliding with others.
 */
public final class MessageKeys {

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
    /**
     * Each thread's hasher: {@link MessageDigest#getInstance} looks its provider up and makes the digest by
     * reflection, which cost a send without a key more than hashing its payload did; and the digest, its half and
     * its text each took an array of their own per send.
     */
    private static final ThreadLocal<Hasher> HASHER = ThreadLocal.withInitial(Hasher::new);

    private MessageKeys() {
    }

    public static String derive(byte[] payload) {
        return HASHER.get().derive(payload);
    }

    private static final class Hasher {
        private final MessageDigest sha256;
        private final byte[] digest = new byte[32];
        private final byte[] half = new byte[16];
        private final byte[] text = new byte[22];

        Hasher() {
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required by the Java platform", e);
            }
        }

        /** Leaves the digest reset for the next payload, as {@link MessageDigest#digest(byte[], int, int)} does. */
        String derive(byte[] payload) {
            sha256.update(payload);
            try {
                sha256.digest(digest, 0, digest.length);
            } catch (DigestException e) {
                throw new IllegalStateException("SHA-256 writes 32 bytes", e);
            }
            System.arraycopy(digest, 0, half, 0, half.length);
            BASE64URL.encode(half, text);
            return new String(text, StandardCharsets.ISO_8859_1);
        }
    }
}
