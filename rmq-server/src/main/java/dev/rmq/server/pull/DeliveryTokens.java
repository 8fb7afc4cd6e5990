package dev.rmq.server.pull;

import dev.rmq.pull.DeliveryRef;
import org.jspecify.annotations.Nullable;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * The tokens under which the server hands out deliveries. A token of a delivery under lease carries its
 * {@link DeliveryRef} (topic, slot, key and the lease deadline Redis keeps for it) and an HMAC-SHA256 of it under
 * a key the servers share: any server with that key settles it, and none can forge one or change what it names.
 * A lease deadline is a microsecond of the Redis clock when the lease was granted, so a token names one delivery
 * only, and an extension gives a new token. Without a shared key each server draws its own, and its tokens are
 * settled by it alone. A delivery of an at-most-once topic, which holds no lease in Redis, gets a random token,
 * settled by its server alone.
 *
 * <p>Layout, base64url without padding: a version byte (1), the topic (2-byte length, UTF-8), the slot (2 bytes),
 * the key (2-byte length, UTF-8), the lease deadline (8 bytes), then the first 16 bytes of the HMAC of all before.
 */
public final class DeliveryTokens {

    /** The shortest shared key: 256 bits, as long as the HMAC's own output. */
    public static final int MIN_SECRET_BYTES = 32;
    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 16;
    private static final int RANDOM_BYTES = 16;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final boolean shared;
    private final SecureRandom random = new SecureRandom();
    private final Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
    private final Base64.Decoder decoder = Base64.getUrlDecoder();
    /** A Mac is not thread-safe; one per thread spares building one per token. */
    private final ThreadLocal<Mac> macs;

    private DeliveryTokens(byte[] secret, boolean shared) {
        this.key = new SecretKeySpec(secret, ALGORITHM);
        this.shared = shared;
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    /** Tokens signed with {@code secret}, which every server that should accept them shares. */
    public static DeliveryTokens shared(String secret) {
        byte[] bytes = secret == null ? new byte[0] : secret.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("rmq.server.tokens.secret must hold at least " + MIN_SECRET_BYTES
                    + " bytes (for example 43 characters of base64 from 32 random bytes: openssl rand -base64 32), held "
                    + bytes.length);
        }
        return new DeliveryTokens(bytes, true);
    }

    /** Tokens signed with a key drawn for this server alone: no other server accepts them. */
    public static DeliveryTokens local() {
        byte[] bytes = new byte[MIN_SECRET_BYTES];
        new SecureRandom().nextBytes(bytes);
        return new DeliveryTokens(bytes, false);
    }

    /** Whether the key is shared with other servers, from configuration. */
    public boolean shared() {
        return shared;
    }

    /** The token of a delivery under lease. */
    public String issue(DeliveryRef ref) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + ref.key().length());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writeText(out, ref.topic());
            out.writeShort(ref.slot());
            writeText(out, ref.key());
            out.writeLong(ref.lease());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] body = bytes.toByteArray();
        byte[] token = Arrays.copyOf(body, body.length + MAC_BYTES);
        System.arraycopy(mac(body), 0, token, body.length, MAC_BYTES);
        return encoder.encodeToString(token);
    }

    /** A random token, for a delivery that holds no lease: it names nothing, and only its server's table knows it. */
    public String random() {
        byte[] bytes = new byte[RANDOM_BYTES];
        random.nextBytes(bytes);
        return encoder.encodeToString(bytes);
    }

    /** The delivery a token names, or null for one that is malformed, forged, or signed with another key. */
    public @Nullable DeliveryRef read(String token) {
        byte[] bytes;
        try {
            bytes = decoder.decode(token);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (bytes.length <= MAC_BYTES + 1 || bytes[0] != VERSION) {
            return null;
        }
        byte[] body = Arrays.copyOf(bytes, bytes.length - MAC_BYTES);
        byte[] expected = Arrays.copyOf(mac(body), MAC_BYTES);
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(bytes, body.length, bytes.length))) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body, 1, body.length - 1))) {
            String topic = readText(in);
            int slot = in.readUnsignedShort();
            String key = readText(in);
            long lease = in.readLong();
            return in.available() == 0 ? new DeliveryRef(topic, slot, key, lease) : null;
        } catch (IOException | IllegalArgumentException e) {
            // signed by this key, yet not a reference: only a token of another layout under the same key
            return null;
        }
    }

    private byte[] mac(byte[] body) {
        return macs.get().doFinal(body);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no " + ALGORITHM + ", which every Java SE runtime provides", e);
        }
    }

    private static void writeText(DataOutputStream out, String text) throws IOException {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        out.writeShort(utf8.length);
        out.write(utf8);
    }

    private static String readText(DataInputStream in) throws IOException {
        byte[] utf8 = new byte[in.readUnsignedShort()];
        in.readFully(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
