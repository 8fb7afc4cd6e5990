package dev.rmq.faults;

import dev.rmq.faults.RedisClients.RedisMode;

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
    /** CLUSTER FAILOVER on a replica. */
    FAILOVER("failover", Deployment.CLUSTER),
    /** SIGKILL of a Cluster master; once its replica took over, the node is restarted and rejoins as a replica. */
    MASTER_KILL("master-kill", Deployment.CLUSTER),
    /** Expiry of a consumer's ZooKeeper session (Curator's injectSessionExpiration). */
    ZK_EXPIRE("zk-expire", null),
    /** Two of the three ZooKeeper servers killed for longer than a session, then restarted. */
    ZK_QUORUM("zk-quorum", null),
    /** The consumers' handlers throw for a fraction of deliveries. */
    LISTENER_ERRORS("listener-errors", null);

    private final String cliName;
    private final Deployment needs;

    FaultKind(String cliName, Deployment needs) {
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
