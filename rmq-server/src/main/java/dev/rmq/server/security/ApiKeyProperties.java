package dev.rmq.server.security;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Who may call the server: {@code rmq.server.api-keys}. Without any key the server listens on loopback only.
 *
 * @param apiKeys The keys a client sends as {@code Authorization: Bearer <key>}, each with its scope. Empty (the
 *                default) means no key is asked for, and the server binds to 127.0.0.1 only.
 */
@ConfigurationProperties("rmq.server")
public record ApiKeyProperties(List<ApiKey> apiKeys) {

    /** Shorter keys are refused: a key is the only thing that stands between the network and the queues. */
    public static final int MIN_KEY_LENGTH = 16;

    public ApiKeyProperties {
        apiKeys = apiKeys == null ? List.of() : List.copyOf(apiKeys);
        Set<String> names = new HashSet<>();
        for (int i = 0; i < apiKeys.size(); i++) {
            ApiKey key = apiKeys.get(i);
            if (key == null) {
                throw new IllegalArgumentException("rmq.server.api-keys[" + i + "] is empty: give its key and scope");
            }
            if (!names.add(key.name(i))) {
                throw new IllegalArgumentException("rmq.server.api-keys[" + i + "].name '" + key.name(i)
                        + "' is used twice; names tell the keys apart in the log, so each must be its own");
            }
        }
    }

    /**
     * One API key.
     *
     * @param key   The secret a client sends as a bearer token: at least 16 characters, for example 32 random
     *              bytes in base64 ({@code openssl rand -base64 32}).
     * @param scope What the key may do: read-only (GET requests) or read-write (everything).
     * @param name  A name for the key, used in the log instead of the key itself; api-key-N by default.
     */
    public record ApiKey(String key, Scope scope, String name) {

        public ApiKey {
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("an entry of rmq.server.api-keys has no key: set its 'key' to a"
                        + " secret of at least " + MIN_KEY_LENGTH + " characters");
            }
            if (key.length() < MIN_KEY_LENGTH) {
                throw new IllegalArgumentException("an API key of rmq.server.api-keys" + (name == null ? "" : " ('"
                        + name + "')") + " is " + key.length() + " characters long; at least " + MIN_KEY_LENGTH
                        + " are needed, for example: openssl rand -base64 32");
            }
            if (!key.strip().equals(key)) {
                throw new IllegalArgumentException("an API key of rmq.server.api-keys" + (name == null ? "" : " ('"
                        + name + "')") + " starts or ends with whitespace, which no Authorization header carries");
            }
            if (scope == null) {
                throw new IllegalArgumentException("an API key of rmq.server.api-keys" + (name == null ? "" : " ('"
                        + name + "')") + " has no scope: set its 'scope' to read-only or read-write");
            }
        }

        /** Its name, or {@code api-key-<index>} when none was given. */
        String name(int index) {
            return name == null || name.isBlank() ? "api-key-" + index : name;
        }
    }

    /** What a key may do. */
    public enum Scope {
        /** GET (and HEAD) only: look at topics, messages, counts and the dead queue. */
        READ_ONLY,
        /** Everything, including what changes state: sending, pulling, settling, dead-queue operations. */
        READ_WRITE
    }
}
