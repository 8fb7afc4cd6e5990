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
     * Each thread's SHA-256: {@link MessageDigest#getInstance} looks its provider up and makes the digest by
     * reflection, which cost a send without a key more than hashing its payload did.
     */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    });
    /**
     * Each thread's arrays for the digest, its first half and its text, which took three arrays a send. Only JDK
     * types are kept per thread, so that a pool thread that outlives the application holds none of its classes.
     */
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(
            () -> new byte[][] {new byte[32], new byte[16], new byte[22]});

    private MessageKeys() {
    }

    public static String derive(byte[] payload) {
        MessageDigest sha256 = SHA_256.get();
        byte[][] scratch = SCRATCH.get();
        byte[] digest = scratch[0];
        byte[] half = scratch[1];
        byte[] text = scratch[2];
        // whatever a failed call left in it
        sha256.reset();
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
