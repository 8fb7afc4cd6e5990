package dev.rmq.codec;

import org.jspecify.annotations.Nullable;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The AES keys that encrypt payloads, each under an id, and the id of the one that encrypts new sends. The id
 * travels with each message in its {@value PayloadForm#KEY_HEADER} header, so that a ring holding the old keys
 * beside the new one still decrypts what was sent before a rotation. To rotate: add the new key to every
 * application's ring, then make it the current one, and drop the old key once no message that used it is left
 * (the inspector and the dead queue show each message's key id).
 * <p>
 * The ring never shows its keys: {@link #toString()} names the ids alone.
 */
public final class PayloadKeyRing {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final Map<String, SecretKey> keys;
    private final String current;

    private PayloadKeyRing(Map<String, SecretKey> keys, String current) {
        this.keys = Map.copyOf(keys);
        this.current = current;
    }

    /** Starts a ring; it needs at least one key and the id of the current one. */
    public static Builder builder() {
        return new Builder();
    }

    /** The id of the key that encrypts new sends. */
    public String currentId() {
        return current;
    }

    /** The key that encrypts new sends. */
    public SecretKey currentKey() {
        return Objects.requireNonNull(keys.get(current), "build() checked that the current key is in the ring");
    }

    /** The key under {@code id}, if the ring still holds it. */
    public Optional<SecretKey> key(String id) {
        return Optional.ofNullable(keys.get(id));
    }

    /** The ids of the keys the ring holds. */
    public Set<String> ids() {
        return new TreeSet<>(keys.keySet());
    }

    @Override
    public String toString() {
        return "PayloadKeyRing[ids=" + ids() + ", current=" + current + "]";
    }

    /** Collects a ring's keys; {@link #build()} checks them. */
    public static final class Builder {
        private final Map<String, SecretKey> keys = new LinkedHashMap<>();
        private @Nullable String current;

        private Builder() {
        }

        /** Adds an AES key of 16, 24 or 32 bytes under {@code id} (letters, digits, {@code . _ -}, up to 64). */
        public Builder key(String id, byte[] key) {
            if (id == null || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException("a key id must be 1 to 64 letters, digits, '.', '_' or '-', was "
                        + (id == null ? "null" : "'" + id + "'"));
            }
            if (key == null || (key.length != 16 && key.length != 24 && key.length != 32)) {
                // the length alone is named, never the bytes
                throw new IllegalArgumentException("key '" + id + "' must be an AES key of 16, 24 or 32 bytes, was "
                        + (key == null ? "null" : key.length + " bytes"));
            }
            if (keys.containsKey(id)) {
                throw new IllegalArgumentException("key id '" + id + "' is given twice");
            }
            keys.put(id, new SecretKeySpec(key.clone(), "AES"));
            return this;
        }

        /** Adds a key given in base64 (standard or URL-safe), as configuration holds it. */
        public Builder base64Key(String id, String base64) {
            if (base64 == null || base64.isBlank()) {
                throw new IllegalArgumentException("key '" + id + "' is empty; give an AES key of 16, 24 or 32 bytes"
                        + " in base64");
            }
            byte[] bytes;
            try {
                String text = base64.trim();
                bytes = text.indexOf('-') >= 0 || text.indexOf('_') >= 0 ? Base64.getUrlDecoder().decode(text)
                        : Base64.getDecoder().decode(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key '" + id + "' is not base64: give an AES key of 16, 24 or 32"
                        + " bytes in base64 (for example from 'openssl rand -base64 32')");
            }
            return key(id, bytes);
        }

        /** The id of the key that encrypts new sends; one of the ring's. */
        public Builder current(String id) {
            this.current = id;
            return this;
        }

        public PayloadKeyRing build() {
            if (keys.isEmpty()) {
                throw new IllegalArgumentException("a key ring needs at least one key");
            }
            if (current == null && keys.size() == 1) {
                current = keys.keySet().iterator().next();
            }
            String named = current;
            if (named == null || !keys.containsKey(named)) {
                throw new IllegalArgumentException("the current key of a ring must be one of its ids "
                        + new TreeSet<>(keys.keySet())
                        + ", was " + (named == null ? "not given" : "'" + named + "'"));
            }
            return new PayloadKeyRing(keys, named);
        }
    }
}
