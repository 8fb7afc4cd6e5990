package dev.rmq.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The configured keys, ready to be checked. A presented key is hashed and compared with every configured key's
 * hash in constant time, and the loop never stops early, so neither the time taken nor the length of a key tells
 * an attacker how close a guess came.
 */
public final class ApiKeys {

    /** A configured key, by name, with what it may do. */
    public record Caller(String name, ApiKeyProperties.Scope scope) {

        /** Whether this caller may make a request with this HTTP method. */
        public boolean mayUse(String method) {
            return scope == ApiKeyProperties.Scope.READ_WRITE || "GET".equals(method) || "HEAD".equals(method);
        }
    }

    private record Entry(byte[] digest, Caller caller) {
    }

    private final List<Entry> entries;

    public ApiKeys(ApiKeyProperties properties) {
        List<Entry> built = new ArrayList<>();
        List<ApiKeyProperties.ApiKey> keys = properties.apiKeys();
        for (int i = 0; i < keys.size(); i++) {
            ApiKeyProperties.ApiKey key = keys.get(i);
            built.add(new Entry(digest(key.key()), new Caller(key.name(i), key.scope())));
        }
        this.entries = List.copyOf(built);
    }

    /** Whether any key is configured; without one the server asks for none. */
    public boolean enabled() {
        return !entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    public List<String> names() {
        return entries.stream().map(entry -> entry.caller().name()).toList();
    }

    /** The caller this key belongs to, if it is one of the configured keys. */
    public Optional<Caller> match(String presented) {
        byte[] digest = digest(presented);
        Caller found = null;
        for (Entry entry : entries) {
            // no early exit: every key is compared, whichever matches
            if (MessageDigest.isEqual(entry.digest(), digest)) {
                found = entry.caller();
            }
        }
        return Optional.ofNullable(found);
    }

    /** SHA-256, so that every compared value has the same length whatever the key's. */
    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }
}
