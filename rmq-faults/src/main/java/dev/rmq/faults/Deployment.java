package dev.rmq.faults;

/**
 * One of the Redis deployments a run can use. Each carries its own three topics (see {@link Workload}),
 * so that with {@code --redis both} every fault kind has messages to hit in one run: a standalone restart
 * the standalone topics, a Cluster failover or master kill the Cluster topics, a Sentinel failover the
 * Sentinel topics.
 */
enum Deployment {
    /** One redis-server with AOF and {@code appendfsync always}. */
    STANDALONE("standalone", "s"),
    /** A Cluster of 3 masters and 3 replicas, replicating asynchronously. */
    CLUSTER("cluster", "c"),
    /** A master and a replica watched by three Sentinels, replicating asynchronously. */
    SENTINEL("sentinel", "v");

    private final String cliName;
    private final String suffix;

    Deployment(String cliName, String suffix) {
        this.cliName = cliName;
        this.suffix = suffix;
    }

    String cliName() {
        return cliName;
    }

    /** The suffix of this deployment's topic names and container ids. */
    String suffix() {
        return suffix;
    }

    /** Whether its masters have replicas, so that a durable send (WAIT for one replica) can succeed. */
    boolean replicated() {
        return this != STANDALONE;
    }
}
