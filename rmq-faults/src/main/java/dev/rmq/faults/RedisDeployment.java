package dev.rmq.faults;

import dev.rmq.testsupport.RedisCluster;
import dev.rmq.testsupport.RedisSentinel;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The harness's own Redis on loopback: one standalone server with AOF and {@code appendfsync always}, or a
 * Cluster of 3 masters and 3 replicas ({@link RedisCluster}), and the Redis faults it can suffer. A run starts
 * one of each deployment it uses.
 */
abstract sealed class RedisDeployment implements AutoCloseable {

    static RedisDeployment start(Deployment deployment) {
        return switch (deployment) {
            case STANDALONE -> new Standalone();
            case CLUSTER -> new Cluster();
            case SENTINEL -> new Sentinel();
        };
    }

    abstract List<String> addresses();

    /** A line for the run's description: version and ports. */
    abstract String describe();

    @Override
    public abstract void close();

    static boolean poll(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (RuntimeException e) {
                // a node that is down or restarting: ask again
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        return false;
    }

    /**
     * A master and its replica under three Sentinels ({@link RedisSentinel}); replication is asynchronous, so a
     * master crash can lose writes.
     */
    static final class Sentinel extends RedisDeployment {

        private final RedisSentinel sentinel = RedisSentinel.start();

        @Override
        List<String> addresses() {
            return sentinel.sentinelAddresses();
        }

        @Override
        String describe() {
            return sentinel + " of redis-server " + sentinel.master().version();
        }

        /** SIGKILL of the master; returns once the replica is promoted and the old master serves as its replica. */
        String failover() {
            RedisServer old = sentinel.killMaster();
            String promoted = ":" + sentinel.master().port();
            sentinel.rejoin(old);
            return "SIGKILL of master :" + old.port() + ", the Sentinels promoted " + promoted + ", and the old master"
                    + " rejoined as its replica";
        }

        @Override
        public void close() {
            sentinel.close();
        }
    }

    /**
     * Standalone Redis with AOF fsynced on every write, so that a crash loses nothing acknowledged. The AOF is
     * rewritten from 16 MB on, as a production Redis rewrites it: at 2,000 messages a second it grows by about
     * 6 MB a minute, and a restart that replays all of it on a busy machine takes longer than a start may.
     */
    static final class Standalone extends RedisDeployment {

        /** How long a restart may take, replaying the AOF, while every other process of the run competes for CPU. */
        private static final Duration RESTART = Duration.ofMinutes(2);
        private final RedisServer server;
        private int restarts;

        Standalone() {
            server = RedisServer.start(RedisServerOptions.defaults().withStartupTimeout(RESTART)
                    .withArgs("--appendonly", "yes", "--appendfsync", "always", "--auto-aof-rewrite-min-size", "16mb"));
        }

        @Override
        List<String> addresses() {
            return List.of(server.address());
        }

        @Override
        String describe() {
            return "standalone redis-server " + server.version() + " on " + server.address() + " (AOF, appendfsync always, rewritten from 16 MB)";
        }

        /**
         * Takes Redis down: every other time a crash (SIGKILL), otherwise a graceful SHUTDOWN. With
         * {@code appendfsync always} neither may lose an acknowledged write. Returns what was done.
         */
        String takeDown() {
            boolean crash = restarts++ % 2 == 0;
            if (crash) {
                server.kill();
            } else {
                server.stop();
            }
            return crash ? "SIGKILL" : "SHUTDOWN";
        }

        /** Empties Redis: every message, lease, fencing token and pause flag is gone. */
        void flushAll() {
            server.command("FLUSHALL");
        }

        /** Starts Redis again on the same port and data directory; it reloads the AOF. */
        void bringUp() {
            server.restart();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /** A 3+3 Cluster with a 2 s node timeout; replication is asynchronous, so a master crash can lose writes. */
    static final class Cluster extends RedisDeployment {

        private static final Duration CONVERGE = Duration.ofSeconds(60);
        private final RedisCluster cluster;
        private final Map<String, Integer> hashSlots = new HashMap<>();

        Cluster() {
            cluster = RedisCluster.start();
        }

        @Override
        List<String> addresses() {
            return cluster.nodeAddresses();
        }

        @Override
        String describe() {
            return "Redis Cluster (3 masters, 3 replicas) of redis-server " + cluster.nodes().get(0).version() + " on "
                    + cluster.nodeAddresses();
        }

        /**
         * The rmq slots whose keys the master on {@code port} serves now.
         *
         * @param storeKeys rmq slot ({@code topic_index}) to its store key, whose hash slot every key of the rmq slot
         *                  shares
         */
        Set<String> slotsServedBy(int port, Map<String, String> storeKeys) {
            Set<String> served = new TreeSet<>();
            storeKeys.forEach((slot, key) -> {
                int hashSlot = hashSlots.computeIfAbsent(key, cluster::keySlot);
                if (cluster.masterForSlot(hashSlot).port() == port) {
                    served.add(slot);
                }
            });
            return served;
        }

        /** A random replica, for {@link #failover(RedisServer)}. */
        RedisServer pickReplica(Random random) {
            List<RedisServer> replicas = new ArrayList<>(cluster.replicas());
            if (replicas.isEmpty()) {
                throw new IllegalStateException("no replica to fail over to:\n" + cluster.describe());
            }
            return replicas.get(random.nextInt(replicas.size()));
        }

        /** The port of the master {@code replica} replicates. */
        static int masterPortOf(RedisServer replica) {
            return Integer.parseInt(replica.info("replication").get("master_port"));
        }

        /** A coordinated {@code CLUSTER FAILOVER} on {@code replica}; returns once the topology has settled. */
        String failover(RedisServer replica) {
            cluster.failover(replica);
            return "CLUSTER FAILOVER on replica :" + replica.port();
        }

        /** A random master, for {@link #kill(RedisServer)}. */
        RedisServer pickMaster(Random random) {
            List<RedisServer> masters = new ArrayList<>(cluster.masters());
            return masters.get(random.nextInt(masters.size()));
        }

        /** SIGKILL of a master; then {@link #rejoin}. */
        void kill(RedisServer master) {
            master.kill();
        }

        /**
         * Waits until a replica took over from the killed master, then restarts the killed node so that it
         * rejoins as a replica, and waits until the Cluster is healthy. Restarting before the promotion would
         * bring the master back empty (Cluster nodes keep no AOF here) and lose everything of its slots.
         */
        String rejoin(RedisServer victim) throws InterruptedException {
            long killed = System.nanoTime();
            if (!poll(CONVERGE, () -> cluster.masters().size() == 3)) {
                throw new IllegalStateException("no replica took over from the killed master :" + victim.port()
                        + " within " + CONVERGE + ":\n" + cluster.describe());
            }
            long promotedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            victim.restart();
            cluster.awaitConverged();
            return "SIGKILL of master :" + victim.port() + ", a replica took over after " + promotedMs
                    + " ms, the node rejoined as a replica";
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
