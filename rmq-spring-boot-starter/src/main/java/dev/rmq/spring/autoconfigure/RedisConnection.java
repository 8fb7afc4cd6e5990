package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.redisson.config.SslVerificationMode;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where and how rmq reaches Redis, in one shape whichever properties said it. {@code rmq.redis.*} wins as
 * a whole when it names a server (address, nodes or sentinel); otherwise {@code spring.data.redis.*} is
 * used when any of it is set; otherwise {@code redis://localhost:6379}, as in Spring Boot. Timeouts the
 * standard properties leave open come from {@code rmq.redis}.
 *
 * @param source where the settings came from, for the log and error messages
 */
record RedisConnection(Mode mode, List<String> addresses, @Nullable String sentinelMaster,
                       @Nullable String sentinelUsername, @Nullable String sentinelPassword, @Nullable String username,
                       @Nullable String password, @Nullable Integer database, Duration timeout, Duration connectTimeout,
                       @Nullable String clientName, boolean ssl, @Nullable String sslBundle,
                       SslVerificationMode verification, String source) {

    enum Mode {
        SINGLE, SENTINEL, CLUSTER
    }

    static RedisConnection resolve(RmqRedisProperties rmq, Environment environment) {
        if (rmq.isConfigured()) {
            return fromRmq(rmq);
        }
        return Binder.get(environment).bind(StandardRedisProperties.PREFIX, Bindable.of(StandardRedisProperties.class))
                .map(standard -> fromStandard(standard, rmq))
                .orElseGet(() -> localDefault(rmq));
    }

    /**
     * From connection details: the properties' own say everything they read; any other bean's are taken with the
     * timeouts, client name and TLS settings of {@code rmq.redis} (TLS on, its SSL bundle, its verification).
     */
    static RedisConnection fromDetails(RmqRedisConnectionDetails details, RmqRedisProperties rmq) {
        if (details instanceof PropertiesRmqRedisConnectionDetails properties) {
            return properties.connection();
        }
        Mode mode = switch (details.mode()) {
            case SINGLE -> Mode.SINGLE;
            case SENTINEL -> Mode.SENTINEL;
            case CLUSTER -> Mode.CLUSTER;
        };
        if (details.addresses() == null || details.addresses().isEmpty()
                || (mode == Mode.SENTINEL && !hasText(details.sentinelMaster()))) {
            throw new IllegalArgumentException("the RmqRedisConnectionDetails bean names no address"
                    + (mode == Mode.SENTINEL ? " or no Sentinel master" : "") + ": " + details);
        }
        boolean ssl = details.ssl() || rmq.ssl().enabled() || hasText(rmq.ssl().bundle())
                || details.addresses().stream().anyMatch(RedisConnection::startsWithRediss);
        List<String> addresses = mode == Mode.SINGLE ? List.of(details.addresses().get(0)) : details.addresses();
        return new RedisConnection(mode, normalize(addresses, ssl), details.sentinelMaster(), null, null,
                details.username(), details.password(), details.database(), rmq.timeout(), rmq.connectTimeout(),
                rmq.clientName(), ssl, rmq.ssl().bundle(), rmq.ssl().verification(), "connection details "
                + details.getClass().getSimpleName());
    }

    private static RedisConnection fromRmq(RmqRedisProperties rmq) {
        boolean ssl = rmq.ssl().enabled() || hasText(rmq.ssl().bundle()) || startsWithRediss(rmq.address())
                || rmq.nodes().stream().anyMatch(RedisConnection::startsWithRediss)
                || rmq.sentinel().nodes().stream().anyMatch(RedisConnection::startsWithRediss);
        Mode mode = hasText(rmq.sentinel().master()) ? Mode.SENTINEL : !rmq.nodes().isEmpty() ? Mode.CLUSTER : Mode.SINGLE;
        List<String> addresses = switch (mode) {
            // rmq.redis names a server, and with neither a Sentinel master nor nodes that is its address
            case SINGLE -> List.of(Objects.requireNonNull(rmq.address(), "rmq.redis.address"));
            case CLUSTER -> rmq.nodes();
            case SENTINEL -> rmq.sentinel().nodes();
        };
        return new RedisConnection(mode, normalize(addresses, ssl), rmq.sentinel().master(), rmq.sentinel().username(),
                rmq.sentinel().password(), rmq.username(), rmq.password(), rmq.database(), rmq.timeout(),
                rmq.connectTimeout(), rmq.clientName(), ssl, rmq.ssl().bundle(), rmq.ssl().verification(), "rmq.redis");
    }

    private static RedisConnection fromStandard(StandardRedisProperties standard, RmqRedisProperties rmq) {
        Duration timeout = standard.timeout() != null ? standard.timeout() : rmq.timeout();
        Duration connectTimeout = standard.connectTimeout() != null ? standard.connectTimeout() : rmq.connectTimeout();
        boolean ssl = standard.ssl().isEnabled();
        String source = StandardRedisProperties.PREFIX;
        if (hasText(standard.sentinel().master())) {
            return new RedisConnection(Mode.SENTINEL, normalize(standard.sentinel().nodes(), ssl), standard.sentinel().master(),
                    standard.sentinel().username(), standard.sentinel().password(), standard.username(),
                    standard.password(), standard.database(), timeout, connectTimeout, standard.clientName(), ssl,
                    standard.ssl().bundle(), rmq.ssl().verification(), source);
        }
        if (!standard.cluster().nodes().isEmpty()) {
            return new RedisConnection(Mode.CLUSTER, normalize(standard.cluster().nodes(), ssl), null, null, null,
                    standard.username(), standard.password(), null, timeout, connectTimeout, standard.clientName(), ssl,
                    standard.ssl().bundle(), rmq.ssl().verification(), source);
        }
        if (hasText(standard.url())) {
            return fromUrl(standard, rmq, timeout, connectTimeout);
        }
        return new RedisConnection(Mode.SINGLE, normalize(List.of(standard.host() + ":" + standard.port()), ssl), null,
                null, null, standard.username(), standard.password(), standard.database(), timeout, connectTimeout,
                standard.clientName(), ssl, standard.ssl().bundle(), rmq.ssl().verification(), source);
    }

    /** {@code redis://user:password@host:port/database}, or {@code rediss://} for TLS, as Spring Boot reads it. */
    private static RedisConnection fromUrl(StandardRedisProperties standard, RmqRedisProperties rmq, Duration timeout,
                                           Duration connectTimeout) {
        URI uri;
        try {
            uri = new URI(standard.url());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("spring.data.redis.url '" + standard.url() + "' is not a URL: "
                    + e.getMessage(), e);
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("spring.data.redis.url must look like redis://[user:password@]host[:port][/database]"
                    + " or rediss://..., was '" + standard.url() + "'");
        }
        boolean ssl = "rediss".equals(uri.getScheme()) || standard.ssl().isEnabled();
        String username = standard.username();
        String password = standard.password();
        if (uri.getUserInfo() != null) {
            int colon = uri.getUserInfo().indexOf(':');
            username = colon > 0 ? uri.getUserInfo().substring(0, colon) : username;
            password = colon >= 0 ? uri.getUserInfo().substring(colon + 1) : uri.getUserInfo();
        }
        int database = standard.database();
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("spring.data.redis.url '" + standard.url()
                        + "' names database '" + path.substring(1) + "', which is not a number");
            }
        }
        int port = uri.getPort() > 0 ? uri.getPort() : 6379;
        return new RedisConnection(Mode.SINGLE, normalize(List.of(uri.getHost() + ":" + port), ssl), null, null, null,
                username, password, database, timeout, connectTimeout, standard.clientName(), ssl,
                standard.ssl().bundle(), rmq.ssl().verification(), StandardRedisProperties.PREFIX + ".url");
    }

    private static RedisConnection localDefault(RmqRedisProperties rmq) {
        boolean ssl = rmq.ssl().enabled() || hasText(rmq.ssl().bundle());
        return new RedisConnection(Mode.SINGLE, normalize(List.of("localhost:6379"), ssl), null, null, null,
                rmq.username(), rmq.password(), rmq.database(), rmq.timeout(), rmq.connectTimeout(), rmq.clientName(),
                ssl, rmq.ssl().bundle(), rmq.ssl().verification(), "the default (no rmq.redis or spring.data.redis)");
    }

    /** Adds the scheme Redisson needs, and turns redis:// into rediss:// when TLS is on. */
    static List<String> normalize(List<String> addresses, boolean ssl) {
        String scheme = ssl ? "rediss://" : "redis://";
        return addresses.stream().map(String::trim).map(address -> {
            if (address.startsWith("redis://")) {
                return ssl ? scheme + address.substring("redis://".length()) : address;
            }
            return address.startsWith("rediss://") ? address : scheme + address;
        }).toList();
    }

    /** "single server redis://127.0.0.1:6379 (from rmq.redis)", for the log and error messages. */
    String describe() {
        String what = switch (mode) {
            case SINGLE -> "single server " + addresses.get(0);
            case CLUSTER -> "Cluster nodes " + addresses;
            case SENTINEL -> "Sentinel master '" + sentinelMaster + "' via " + addresses;
        };
        return what + (username != null ? " as user '" + username + "'" : "") + " (from " + source + ")";
    }

    private static boolean startsWithRediss(@Nullable String address) {
        return address != null && address.trim().startsWith("rediss://");
    }

    private static boolean hasText(@Nullable String value) {
        return value != null && !value.isBlank();
    }
}
