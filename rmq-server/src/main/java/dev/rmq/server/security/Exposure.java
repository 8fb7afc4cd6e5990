package dev.rmq.server.security;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Who can reach the server, decided from the configuration before the web server starts: with API keys, whoever
 * holds one; without, only this machine, on loopback. A non-loopback {@code server.address} without a key is
 * refused, since the API can take and delete every message.
 *
 * @param kind    which case applies
 * @param address the configured {@code server.address}, or null when none is
 * @param keys    how many API keys are configured
 */
public record Exposure(Kind kind, @Nullable String address, int keys) {

    /** The address the server binds to when no key is configured and no address is given. */
    public static final String LOOPBACK = "127.0.0.1";

    public enum Kind {
        /** API keys are configured: the server listens wherever it is told, and asks every caller for a key. */
        KEYS,
        /** No key and no address: the server binds to {@link #LOOPBACK}. */
        DEFAULT_LOOPBACK,
        /** No key, and the configured address is a loopback one. */
        CONFIGURED_LOOPBACK,
        /** No key, and the configured address can be reached from elsewhere: start-up must fail. */
        UNPROTECTED
    }

    /** Only the presence of a key matters here; the keys themselves are checked when they are bound. */
    public record KeyPresence(String key) {
    }

    public static Exposure of(Environment environment) {
        List<KeyPresence> configured = Binder.get(environment)
                .bind("rmq.server.api-keys", Bindable.listOf(KeyPresence.class)).orElse(List.of());
        int keys = (int) configured.stream().filter(k -> k != null && k.key() != null && !k.key().isBlank()).count();
        String address = environment.getProperty("server.address");
        if (address != null && address.isBlank()) {
            address = null;
        }
        if (keys > 0) {
            return new Exposure(Kind.KEYS, address, keys);
        }
        if (address == null) {
            return new Exposure(Kind.DEFAULT_LOOPBACK, null, 0);
        }
        return new Exposure(isLoopback(address) ? Kind.CONFIGURED_LOOPBACK : Kind.UNPROTECTED, address, 0);
    }

    /** An address that cannot be resolved counts as reachable from elsewhere: the safe side. */
    static boolean isLoopback(String address) {
        try {
            return InetAddress.getByName(address.strip()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
