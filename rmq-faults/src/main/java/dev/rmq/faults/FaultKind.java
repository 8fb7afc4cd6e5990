package dev.rmq.faults;

import dev.rmq.faults.RedisClients.RedisMode;
import org.jspecify.annotations.Nullable;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The faults the harness injects. All but {@link #LISTENER_ERRORS} are discrete events injected one at a
 * time at random moments; listener errors run all along at the configured rate.
 *
 * <p>Which duplicates a fault may explain is not a property of its kind but of whom it hit and when: see
 * {@link InvariantChecker}.
 */
enum FaultKind {
    /** SIGKILL of a consumer JVM in the middle of a message, then a restart. */
    KILL("kill", null),
    /** SIGSTOP of a consumer JVM for longer than its lease and its ZooKeeper session, then SIGCONT. */
    STOP("stop", null),
    /** Standalone Redis taken down (SIGKILL or SHUTDOWN in turn) and started again on its AOF. */
    REDIS_RESTART("redis-restart", Deployment.STANDALONE),
    /**
     * FLUSHALL on the standalone Redis, as a restart without persistence loses everything; then a restore from the
     * journal of its at-least-once topics (their sends are journaled synchronously, their deliveries behind).
     */
    REDIS_FLUSH("redis-flush", Deployment.STANDALONE),
    /** CLUSTER FAILOVER on a replica. */
    FAILOVER("failover", Deployment.CLUSTER),
    /** SIGKILL of a Cluster master; once its replica took over, the node is restarted and rejoins as a replica. */
    MASTER_KILL("master-kill", Deployment.CLUSTER),
    /** SIGKILL of the Sentinel deployment's master; the Sentinels promote its replica, and it rejoins as a replica. */
    SENTINEL_FAILOVER("sentinel-failover", Deployment.SENTINEL),
    /** Expiry of a consumer's ZooKeeper session (Curator's injectSessionExpiration). */
    ZK_EXPIRE("zk-expire", null),
    /** Two of the three ZooKeeper servers killed for longer than a session, then restarted. */
    ZK_QUORUM("zk-quorum", null),
    /** A consumer's link to the standalone Redis slowed by 300 ms or 1 s each way for a few seconds. */
    NET_LATENCY("net-latency", Deployment.STANDALONE),
    /** A consumer's link to the standalone Redis stalled for 1 to 2 s, shorter than a lease: the bytes arrive late. */
    NET_STALL("net-stall", Deployment.STANDALONE),
    /**
     * A consumer's link to the standalone Redis stalled past the lease, while the consumer keeps its ZooKeeper
     * session: its acknowledgements reach Redis after its leases ran out.
     */
    NET_STALL_PAST_LEASE("net-stall-past-lease", Deployment.STANDALONE),
    /** Every open connection of a consumer, to the standalone Redis and to ZooKeeper, reset at once. */
    NET_RESET("net-reset", Deployment.STANDALONE),
    /** A consumer's new connections to the standalone Redis refused for a few seconds, its open ones reset. */
    NET_REFUSE("net-refuse", Deployment.STANDALONE),
    /** A consumer cut off from ZooKeeper past its session timeout while it still reaches Redis. */
    ZK_PARTITION("zk-partition", null),
    /** The consumers' handlers throw for a fraction of deliveries. */
    LISTENER_ERRORS("listener-errors", null);

    private final String cliName;
    /** The deployment the fault needs, or null when every run has what it hits. */
    private final @Nullable Deployment needs;

    FaultKind(String cliName, @Nullable Deployment needs) {
        this.cliName = cliName;
        this.needs = needs;
    }

    String cliName() {
        return cliName;
    }

    boolean isDiscrete() {
        return this != LISTENER_ERRORS;
    }

    /** Whether a run with this Redis mode has what the fault hits: every kind applies to {@code both}. */
    boolean appliesTo(RedisMode mode) {
        return needs == null || mode.has(needs);
    }

    static Set<FaultKind> defaultsFor(RedisMode mode) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (FaultKind kind : values()) {
            if (kind.appliesTo(mode)) {
                kinds.add(kind);
            }
        }
        return kinds;
    }

    static FaultKind parse(String text) {
        return Arrays.stream(values()).filter(k -> k.cliName.equals(text)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + text + "'; known: "
                        + Arrays.stream(values()).map(FaultKind::cliName).toList()));
    }
}
