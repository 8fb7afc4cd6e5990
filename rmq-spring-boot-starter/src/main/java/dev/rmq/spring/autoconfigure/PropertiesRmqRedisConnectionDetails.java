package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

import java.util.List;

/**
 * The connection details the properties give, the default {@link RmqRedisConnectionDetails} bean:
 * {@code rmq.redis.*} when it names a server, else {@code spring.data.redis.*}, else {@code localhost:6379}. The
 * auto-configuration reads only connection details, so a bean of the application's own (or a service connection's)
 * replaces these whole. The properties are read when the client is built, not before: an application with its own
 * RedissonClient never has them checked.
 */
public final class PropertiesRmqRedisConnectionDetails implements RmqRedisConnectionDetails {

    private final RmqRedisProperties properties;
    private final Environment environment;
    private @Nullable RedisConnection resolved;

    PropertiesRmqRedisConnectionDetails(RmqRedisProperties properties, Environment environment) {
        this.properties = properties;
        this.environment = environment;
    }

    /** What the properties say, timeouts, client name and TLS included. */
    synchronized RedisConnection connection() {
        if (resolved == null) {
            resolved = RedisConnection.resolve(properties, environment);
        }
        return resolved;
    }

    @Override
    public List<String> addresses() {
        return connection().addresses();
    }

    @Override
    public Mode mode() {
        return switch (connection().mode()) {
            case SINGLE -> Mode.SINGLE;
            case SENTINEL -> Mode.SENTINEL;
            case CLUSTER -> Mode.CLUSTER;
        };
    }

    @Override
    public @Nullable String sentinelMaster() {
        return connection().sentinelMaster();
    }

    @Override
    public @Nullable String username() {
        return connection().username();
    }

    @Override
    public @Nullable String password() {
        return connection().password();
    }

    @Override
    public @Nullable Integer database() {
        return connection().database();
    }

    @Override
    public boolean ssl() {
        return connection().ssl();
    }

    @Override
    public String toString() {
        return connection().describe();
    }
}
