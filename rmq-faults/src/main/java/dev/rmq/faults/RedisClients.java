package dev.rmq.faults;

import dev.rmq.testsupport.RedisSentinel;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.List;

/** The Redisson clients of the harness's processes, standalone or Cluster, from a list of addresses. */
final class RedisClients {

    private RedisClients() {
    }

    /**
     * A client with small pools (every process of a run shares two cores).
     *
     * @param retryAttempts Redisson's own resends of a command that got no reply; the producer uses 0, so that a
     *                      send is never run twice behind its back (a resent single send reports itself merged)
     */
    static RedissonClient create(Deployment deployment, List<String> addresses, int retryAttempts) {
        Config config = new Config();
        config.setThreads(4).setNettyThreads(8);
        if (deployment == Deployment.STANDALONE) {
            config.useSingleServer().setAddress(addresses.get(0)).setConnectionMinimumIdleSize(2)
                    .setConnectionPoolSize(8).setSubscriptionConnectionMinimumIdleSize(1)
                    .setTimeout(3000).setConnectTimeout(2000).setRetryAttempts(retryAttempts).setRetryInterval(500);
        } else if (deployment == Deployment.SENTINEL) {
            config.useSentinelServers().setMasterName(RedisSentinel.MASTER_NAME).addSentinelAddress(addresses.toArray(String[]::new))
                    .setMasterConnectionMinimumIdleSize(2).setMasterConnectionPoolSize(8)
                    .setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2)
                    .setSubscriptionConnectionMinimumIdleSize(1).setScanInterval(1000)
                    .setTimeout(3000).setConnectTimeout(2000).setRetryAttempts(retryAttempts).setRetryInterval(500);
        } else {
            config.useClusterServers().setNodeAddresses(addresses);
            config.useClusterServers().setScanInterval(1000).setMasterConnectionMinimumIdleSize(2)
                    .setMasterConnectionPoolSize(8).setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2)
                    .setSubscriptionConnectionMinimumIdleSize(1)
                    .setTimeout(3000).setConnectTimeout(2000).setRetryAttempts(retryAttempts).setRetryInterval(500);
        }
        return Redisson.create(config);
    }

    /** Which deployments a run uses: standalone Redis with AOF, a Cluster of 3 masters and 3 replicas, or both. */
    enum RedisMode {
        STANDALONE(List.of(Deployment.STANDALONE)),
        CLUSTER(List.of(Deployment.CLUSTER)),
        BOTH(List.of(Deployment.STANDALONE, Deployment.CLUSTER)),
        SENTINEL(List.of(Deployment.SENTINEL)),
        ALL(List.of(Deployment.STANDALONE, Deployment.CLUSTER, Deployment.SENTINEL));

        private final List<Deployment> deployments;

        RedisMode(List<Deployment> deployments) {
            this.deployments = deployments;
        }

        static RedisMode parse(String text) {
            return switch (text) {
                case "standalone" -> STANDALONE;
                case "cluster" -> CLUSTER;
                case "both" -> BOTH;
                case "sentinel" -> SENTINEL;
                case "all" -> ALL;
                default -> throw new IllegalArgumentException("--redis must be standalone, cluster, both, sentinel or all,"
                        + " was " + text);
            };
        }

        String cliName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        List<Deployment> deployments() {
            return deployments;
        }

        boolean has(Deployment deployment) {
            return deployments.contains(deployment);
        }
    }
}
