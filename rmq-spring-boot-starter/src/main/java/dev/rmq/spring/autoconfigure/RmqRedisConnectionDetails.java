package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

import java.util.List;

/**
 * Where rmq's Redis is: the only thing the auto-configuration reads to build its client. By default the properties
 * say it ({@link PropertiesRmqRedisConnectionDetails}); a bean of the application's own, or of a service connection
 * ({@code @ServiceConnection} on a Testcontainers container), replaces them. With such a bean, timeouts, the client
 * name and TLS verification still come from {@code rmq.redis.*}.
 */
public interface RmqRedisConnectionDetails extends ConnectionDetails {

    /** How the addresses are read. */
    enum Mode {
        /** One server. */
        SINGLE,
        /** The Sentinels of {@link #sentinelMaster()}. */
        SENTINEL,
        /** Cluster nodes to start discovery from. */
        CLUSTER
    }

    /** {@code host:port}, or {@code redis://host:port} ({@code rediss://} for TLS); one for a single server. */
    List<String> addresses();

    default Mode mode() {
        return Mode.SINGLE;
    }

    /** The master's name, for {@link Mode#SENTINEL}. */
    default @Nullable String sentinelMaster() {
        return null;
    }

    /** The ACL user, or null for the default user. */
    default @Nullable String username() {
        return null;
    }

    default @Nullable String password() {
        return null;
    }

    /** The database index, or null for 0. */
    default @Nullable Integer database() {
        return null;
    }

    /** Whether to use TLS. */
    default boolean ssl() {
        return false;
    }
}
