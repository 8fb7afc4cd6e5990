package dev.rmq.spring.autoconfigure;

import dev.rmq.ScriptMode;
import org.jspecify.annotations.Nullable;
import org.redisson.config.SslVerificationMode;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.StringUtils;

import java.time.Duration;
import java.util.List;

/**
 * The Redis connection rmq builds when the application has no {@code RedissonClient} bean. Set one of
 * address (single server), nodes (Cluster) or sentinel.master (Sentinel).
 *
 * @param address        Single server, as redis://host:port, or rediss://host:port for TLS.
 * @param nodes          Redis Cluster nodes to start discovery from, as host:port or URLs.
 * @param sentinel       Redis Sentinel.
 * @param username       ACL user name (Redis 6+). Unset for the default user.
 * @param password       Password of the user, or for AUTH with requirepass.
 * @param database       Database index (not for Cluster).
 * @param timeout        How long a command may wait for its reply; also the health check's PING timeout.
 * @param connectTimeout How long connecting may take.
 * @param clientName     Name set with CLIENT SETNAME on every connection.
 * @param ssl            TLS.
 * @param outageThreshold How long a listener container's or the producer's calls must have failed, or waited
 *                       for a reply, before one WARN line reports the outage (and health shows the container
 *                       down); one INFO line gives its length when Redis answers again.
 * @param pool           The connections rmq's Redisson client keeps to each Redis node (not used when the
 *                       application brings its own RedissonClient).
 * @param scriptMode     How rmq runs its scripts: FUNCTIONS (Redis Functions where every master can load them,
 *                       else EVALSHA) or EVALSHA (always, for a proxy that passes EVALSHA but not FCALL).
 */
public record RmqRedisProperties(@Nullable String address,
                                 List<String> nodes,
                                 @DefaultValue Sentinel sentinel,
                                 @Nullable String username,
                                 @Nullable String password,
                                 @Nullable Integer database,
                                 @DefaultValue("3s") Duration timeout,
                                 @DefaultValue("10s") Duration connectTimeout,
                                 @Nullable String clientName,
                                 @DefaultValue Ssl ssl,
                                 @DefaultValue("2s") Duration outageThreshold,
                                 @Nullable Pool pool,
                                 @DefaultValue("FUNCTIONS") ScriptMode scriptMode) {

    public RmqRedisProperties {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        int modes = (StringUtils.hasText(address) ? 1 : 0) + (nodes.isEmpty() ? 0 : 1) + (StringUtils.hasText(sentinel.master()) ? 1 : 0);
        if (modes > 1) {
            throw new IllegalArgumentException("set only one of rmq.redis.address (single server), rmq.redis.nodes"
                                 + " (Cluster) and rmq.redis.sentinel.master (Sentinel)");
        }
        if (StringUtils.hasText(sentinel.master()) && sentinel.nodes().isEmpty()) {
            throw new IllegalArgumentException("rmq.redis.sentinel.nodes must list the Sentinels of master '"
                                 + sentinel.master() + "'");
        }
    }

    /** Whether any of address, nodes and sentinel.master is set. */
    public boolean isConfigured() {
        return StringUtils.hasText(address) || !nodes.isEmpty() || StringUtils.hasText(sentinel.master());
    }

    /**
     * The connections rmq's Redisson client keeps to each Redis node. Commands that wait for no reply in particular
     * share a connection, pipelined, so a few carry all of rmq's sends and polls; a durable send holds one for its
     * WAIT, and the pool grows to the size on demand, closing what stays idle beyond the minimum. Unset values take
     * rmq's defaults.
     *
     * @param minimumIdle Connections opened at start and kept open to each node (2 by default).
     * @param size        The most connections to each node (32 by default).
     */
    public record Pool(@Nullable Integer minimumIdle, @Nullable Integer size) {

        public Pool {
            if (size != null && size < 1) {
                throw new IllegalArgumentException("rmq.redis.pool.size must be at least 1, was " + size);
            }
            if (minimumIdle != null && (minimumIdle < 0 || minimumIdle > (size == null ? RedissonConfigFactory.POOL_SIZE
                                 : size))) {
                throw new IllegalArgumentException("rmq.redis.pool.minimum-idle must be between 0 and the pool's size ("
                                     + (size == null ? RedissonConfigFactory.POOL_SIZE : size) + "), was " + minimumIdle);
            }
        }
    }

    /**
     * Redis Sentinel.
     *
     * @param master   Name of the monitored master.
     * @param nodes    Sentinels, as host:port or URLs.
     * @param username ACL user name for the Sentinels.
     * @param password Password for the Sentinels.
     */
    public record Sentinel(@Nullable String master, List<String> nodes, @Nullable String username,
                           @Nullable String password) {

        public Sentinel {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
        }
    }

    /**
     * TLS to Redis. A {@code rediss://} address turns it on too.
     *
     * @param enabled      Whether to use TLS.
     * @param bundle       Name of a Spring Boot SSL bundle (spring.ssl.bundle.*) holding the trust store, and the
     *                     key store for client certificates. Unset means the JVM's default trust store.
     * @param verification How the server's certificate is checked: STRICT (chain and host name), CA_ONLY or NONE.
     */
    public record Ssl(@DefaultValue("false") boolean enabled,
                                   @Nullable String bundle,
                                   @DefaultValue("STRICT") SslVerificationMode verification) {
    }
}
