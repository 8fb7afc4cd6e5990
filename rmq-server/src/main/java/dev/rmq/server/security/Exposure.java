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
 * refused, since the API can take and delete every message. The actuator on a port of its own
 * ({@code management.server.port}) listens at {@code management.server.address}, on every interface unless told:
 * without a key it is held to loopback as the API is.
 *
 * @param kind     which case applies
 * @param property the property that holds {@code address}: {@code server.address}, or
 *                 {@code management.server.address} when that one is reachable and the API is not
 * @param address  the configured address, or null when none is
 * @param keys     how many API keys are configured
 */
public record Exposure(Kind kind, String property, @Nullable String address, int keys) {

    /** The address the server binds to when no key is configured and no address is given. */
    public static final String LOOPBACK = "127.0.0.1";
    static final String SERVER_ADDRESS = "server.address";
    static final String MANAGEMENT_ADDRESS = "management.server.address";

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
        String address = configured(environment, SERVER_ADDRESS);
        if (keys > 0) {
            return new Exposure(Kind.KEYS, SERVER_ADDRESS, address, keys);
        }
        String management = configured(environment, MANAGEMENT_ADDRESS);
        if (management != null && actuatorApart(environment) && !isLoopback(management)) {
            return new Exposure(Kind.UNPROTECTED, MANAGEMENT_ADDRESS, management, 0);
        }
        if (address == null) {
            return new Exposure(Kind.DEFAULT_LOOPBACK, SERVER_ADDRESS, null, 0);
        }
        return new Exposure(isLoopback(address) ? Kind.CONFIGURED_LOOPBACK : Kind.UNPROTECTED, SERVER_ADDRESS,
                address, 0);
    }

    /**
     * Whether the actuator runs in a web server of its own, as Spring Boot decides it: a management port that is
     * set, not negative (off), and not the server's own (0, a random port, is never the server's).
     */
    static boolean actuatorApart(Environment environment) {
        Integer management = environment.getProperty("management.server.port", Integer.class);
        Integer server = environment.getProperty("server.port", Integer.class);
        if (management == null || management < 0) {
            return false;
        }
        return server == null ? management != 8080 : management == 0 || !management.equals(server);
    }

    /** The property's value, null when it is unset or blank. */
    static @Nullable String configured(Environment environment, String property) {
        String value = environment.getProperty(property);
        return value == null || value.isBlank() ? null : value;
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
