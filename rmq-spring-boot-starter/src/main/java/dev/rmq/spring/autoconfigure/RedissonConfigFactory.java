package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

import java.time.Duration;

/**
 * Turns a {@link RedisConnection} into Redisson's {@link Config}. Credentials and TLS go on the top-level
 * config, where Redisson 4 keeps them for every mode; a {@code rediss://} address is what switches TLS on.
 *
 * <p>The connection pools are sized to what rmq uses rather than Redisson's defaults (24 connections opened to
 * every node at start): rmq's scripts share pipelined connections, so an instance needs a handful per node, and
 * ten instances should not hold hundreds of connections against a managed Redis's limit.
 */
final class RedissonConfigFactory {

    /** Connections opened at start and kept open to each node, unless {@code rmq.redis.pool.minimum-idle} says. */
    static final int MINIMUM_IDLE = 2;
    /** The most connections to each node, unless {@code rmq.redis.pool.size} says. */
    static final int POOL_SIZE = 32;

    private RedissonConfigFactory() {
    }

    /**
     * @param sslBundles the application's SSL bundles, or null when it has none
     * @throws IllegalArgumentException naming the problem and where the settings came from
     */
    static Config create(RedisConnection connection, @Nullable SslBundles sslBundles,
                         RmqRedisProperties.@Nullable Pool pool) {
        int minimumIdle = pool == null || pool.minimumIdle() == null ? Math.min(MINIMUM_IDLE, sizeOf(pool))
                : pool.minimumIdle();
        int size = sizeOf(pool);
        Config config = new Config();
        if (connection.username() != null && !connection.username().isBlank()) {
            config.setUsername(connection.username());
        }
        if (connection.password() != null && !connection.password().isEmpty()) {
            config.setPassword(connection.password());
        }
        switch (connection.mode()) {
            case SINGLE -> {
                SingleServerConfig single = config.useSingleServer().setAddress(connection.addresses().get(0));
                if (connection.database() != null) {
                    single.setDatabase(connection.database());
                }
                single.setConnectionMinimumIdleSize(minimumIdle).setConnectionPoolSize(size)
                        .setSubscriptionConnectionMinimumIdleSize(1);
                common(single, connection);
            }
            case CLUSTER -> {
                if (connection.database() != null && connection.database() != 0) {
                    throw new IllegalArgumentException("Redis Cluster has only database 0, but database "
                            + connection.database() + " is set in " + connection.source());
                }
                ClusterServersConfig cluster = config.useClusterServers()
                        .addNodeAddress(connection.addresses().toArray(String[]::new));
                pools(cluster, minimumIdle, size);
                common(cluster, connection);
            }
            case SENTINEL -> {
                SentinelServersConfig sentinel = config.useSentinelServers()
                        .setMasterName(connection.sentinelMaster())
                        .addSentinelAddress(connection.addresses().toArray(String[]::new));
                if (connection.sentinelUsername() != null) {
                    sentinel.setSentinelUsername(connection.sentinelUsername());
                }
                if (connection.sentinelPassword() != null) {
                    sentinel.setSentinelPassword(connection.sentinelPassword());
                }
                if (connection.database() != null) {
                    sentinel.setDatabase(connection.database());
                }
                pools(sentinel, minimumIdle, size);
                common(sentinel, connection);
            }
        }
        if (connection.ssl()) {
            ssl(config, connection, sslBundles);
        }
        return config;
    }

    private static int sizeOf(RmqRedisProperties.@Nullable Pool pool) {
        return pool == null || pool.size() == null ? POOL_SIZE : pool.size();
    }

    /** A master's and its replicas' pools: rmq's scripts run on masters, so replicas get no more than masters. */
    private static void pools(BaseMasterSlaveServersConfig<?> servers, int minimumIdle, int size) {
        servers.setMasterConnectionMinimumIdleSize(minimumIdle).setMasterConnectionPoolSize(size)
                .setSlaveConnectionMinimumIdleSize(minimumIdle).setSlaveConnectionPoolSize(size)
                .setSubscriptionConnectionMinimumIdleSize(1);
    }

    private static void common(BaseConfig<?> server, RedisConnection connection) {
        server.setTimeout(millis(connection.timeout(), "timeout", connection));
        server.setConnectTimeout(millis(connection.connectTimeout(), "connect timeout", connection));
        if (connection.clientName() != null && !connection.clientName().isBlank()) {
            server.setClientName(connection.clientName());
        }
    }

    private static void ssl(Config config, RedisConnection connection, @Nullable SslBundles sslBundles) {
        config.setSslVerificationMode(connection.verification());
        String bundleName = connection.sslBundle();
        if (bundleName == null || bundleName.isBlank()) {
            return; // the JVM's default trust store
        }
        if (sslBundles == null) {
            throw new IllegalArgumentException("SSL bundle '" + bundleName + "' is named in " + connection.source()
                    + ", but the application has no SslBundles (spring.ssl.bundle.*)");
        }
        SslBundle bundle;
        try {
            bundle = sslBundles.getBundle(bundleName);
        } catch (NoSuchSslBundleException e) {
            throw new IllegalArgumentException("SSL bundle '" + bundleName + "' named in " + connection.source()
                    + " is not defined under spring.ssl.bundle.*", e);
        }
        config.setSslTrustManagerFactory(bundle.getManagers().getTrustManagerFactory());
        if (bundle.getStores().getKeyStore() != null) {
            config.setSslKeyManagerFactory(bundle.getManagers().getKeyManagerFactory());
        }
        if (bundle.getOptions().getEnabledProtocols() != null) {
            config.setSslProtocols(bundle.getOptions().getEnabledProtocols());
        }
        if (bundle.getOptions().getCiphers() != null) {
            config.setSslCiphers(bundle.getOptions().getCiphers());
        }
    }

    private static int millis(@Nullable Duration value, String what, RedisConnection connection) {
        if (value == null || value.isNegative() || value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Redis " + what + " in " + connection.source()
                    + " must be between 0 and " + Integer.MAX_VALUE + " ms, was " + value);
        }
        return (int) value.toMillis();
    }
}
