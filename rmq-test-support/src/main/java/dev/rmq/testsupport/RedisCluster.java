package dev.rmq.testsupport;

import dev.rmq.embedded.Poll;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real 6-node Redis Cluster (3 masters, 3 replicas) on free loopback ports.
 *
 * <p>Formed with plain cluster commands instead of {@code redis-cli --cluster create}, because the
 * embedded-redis artifact ships no redis-cli. Slots are assigned with {@code ADDSLOTS} so Redis 6.2
 * works too ({@code ADDSLOTSRANGE} is 7.0+).
 */
public final class RedisCluster implements AutoCloseable {

    public static final int SLOTS = 16_384;
    private static final int MASTERS = 3;
    private static final int REPLICAS_PER_MASTER = 1;
    private static final int ADDSLOTS_BATCH = 1_000;
    private static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);

    private final List<RedisServer> nodes;
    private volatile boolean closed;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts and joins the nodes; returns once every node agrees on the topology and replicas are in sync. */
    public static RedisCluster start() {
        long startNanos = System.nanoTime();
        RedisServerOptions options = RedisServerOptions.defaults().withArgs(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                // Short enough that failure detection in tests takes seconds, long enough not to flap on a busy CI box.
                "--cluster-node-timeout", "2000",
                // Redis 7 delays a diskless full sync by 5 s hoping more replicas arrive; each master has one.
                "--repl-diskless-sync-delay", "0",
                "--appendonly", "no",
                "--save", "");
        List<RedisServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < MASTERS * (1 + REPLICAS_PER_MASTER); i++) {
                started.add(RedisServer.start(options));
            }
            log.debug("Started {} nodes in {} ms", started.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            RedisCluster cluster = new RedisCluster(started);
            cluster.form();
            log.info("Redis Cluster with redis-server {} formed in {} ms on ports {}", started.get(0).version(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                    started.stream().map(n -> Integer.toString(n.port())).collect(Collectors.joining(",")));
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(RedisCluster::closeQuietly);
            throw e;
        }
    }

    /** All six nodes, in start order; roles can change after {@link #failover(RedisServer)}. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Running nodes that currently consider themselves masters (a killed node is neither). */
    public List<RedisServer> masters() {
        return runningNodesWithRole("master");
    }

    /** Running nodes that currently consider themselves replicas. */
    public List<RedisServer> replicas() {
        return runningNodesWithRole("slave");
    }

    /** {@code redis://127.0.0.1:<port>} of every node, for Redisson's {@code useClusterServers().addNodeAddress(...)}. */
    public List<String> nodeAddresses() {
        return nodes.stream().map(RedisServer::address).toList();
    }

    public int keySlot(String key) {
        return Math.toIntExact((Long) reply(anyRunningNode(), "CLUSTER", "KEYSLOT", key));
    }

    /** The master serving {@code slot}, according to the first running node's view. */
    public RedisServer masterForSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot " + slot + " is outside 0.." + (SLOTS - 1));
        }
        RedisServer viewer = anyRunningNode();
        for (NodeLine line : NodeLine.parseAll((String) reply(viewer, "CLUSTER", "NODES"))) {
            if (line.isMaster() && line.servesSlot(slot)) {
                return byPort(line.port());
            }
        }
        throw new IllegalStateException("No master serves slot " + slot + " in the view of " + viewer + ":\n" + describe());
    }

    /**
     * Promotes {@code replica} with a coordinated {@code CLUSTER FAILOVER} and waits until every node
     * agrees on the new topology. Needs all nodes running (the old master must take part).
     */
    public void failover(RedisServer replica) {
        if (!nodes.contains(replica)) {
            throw new IllegalArgumentException(replica + " is not a node of this cluster");
        }
        if (!replica.role().equals("slave")) {
            throw new IllegalArgumentException(replica + " is not a replica, so it cannot be failed over to");
        }
        replica.command("CLUSTER", "FAILOVER");
        Poll.until(CONVERGE_TIMEOUT, () -> replica.role().equals("master") && converged(),
                () -> "Failover to " + replica + " did not complete within " + CONVERGE_TIMEOUT + ":\n" + describe());
    }

    /**
     * Waits until every node is up, agrees on the same masters and replicas, and each replica is linked to its
     * master: after a killed node was restarted, for example.
     */
    public void awaitConverged() {
        Poll.until(CONVERGE_TIMEOUT, this::converged,
                () -> "Cluster did not converge within " + CONVERGE_TIMEOUT + ":\n" + describe());
    }

    /** CLUSTER NODES as every node sees it; for assertion and error messages. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        for (RedisServer node : nodes) {
            out.append("--- ").append(node).append(" ---\n");
            try {
                out.append(((String) reply(node, "CLUSTER", "NODES")).trim()).append('\n');
            } catch (RuntimeException e) {
                out.append("(unavailable: ").append(e.getMessage()).append(")\n");
            }
        }
        return out.toString();
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        nodes.forEach(RedisCluster::closeQuietly);
    }

    @Override
    public String toString() {
        return "RedisCluster" + nodeAddresses();
    }

    // --- forming ---------------------------------------------------------------------------------------------

    private void form() {
        List<RedisServer> masters = nodes.subList(0, MASTERS);
        List<RedisServer> replicas = nodes.subList(MASTERS, nodes.size());
        // in the order of the nodes, the masters first
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer node = nodes.get(i);
            ids.add((String) node.command("CLUSTER", "MYID"));
            // Distinct epochs up front, as redis-cli does, so nodes need not resolve epoch collisions first.
            node.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (int i = 0; i < MASTERS; i++) {
            addSlots(masters.get(i), i * SLOTS / MASTERS, (i + 1) * SLOTS / MASTERS - 1);
        }
        // Every node meets every other directly instead of waiting for gossip to spread the news; saves about a second.
        for (RedisServer node : nodes) {
            for (RedisServer other : nodes) {
                if (other != node) {
                    node.command("CLUSTER", "MEET", RedisServer.HOST, Integer.toString(other.port()));
                }
            }
        }
        // CLUSTER REPLICATE fails with "Unknown node" until the replica has finished the handshake with its master.
        Poll.until(CONVERGE_TIMEOUT, this::allNodesKnowEachOther,
                () -> "Nodes did not all meet within " + CONVERGE_TIMEOUT + ":\n" + describe());
        log.debug("All nodes met");
        for (int i = 0; i < replicas.size(); i++) {
            replicas.get(i).command("CLUSTER", "REPLICATE", ids.get(i % MASTERS));
        }
        Poll.until(CONVERGE_TIMEOUT, this::converged,
                () -> "Cluster did not reach cluster_state:ok with synced replicas within " + CONVERGE_TIMEOUT + ":\n" + describe());
    }

    private static void addSlots(RedisServer master, int from, int to) {
        for (int batchStart = from; batchStart <= to; batchStart += ADDSLOTS_BATCH) {
            int batchEnd = Math.min(to, batchStart + ADDSLOTS_BATCH - 1);
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = batchStart; slot <= batchEnd; slot++) {
                command.add(Integer.toString(slot));
            }
            master.command(command.toArray(String[]::new));
        }
    }

    private boolean allNodesKnowEachOther() {
        for (RedisServer node : nodes) {
            List<NodeLine> view = NodeLine.parseAll((String) reply(node, "CLUSTER", "NODES"));
            if (view.size() != nodes.size() || view.stream().anyMatch(l -> l.hasAnyFlag("handshake", "noaddr"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Healthy means more than cluster_state:ok on each node: clients such as Redisson read the topology
     * from one node, so every node must report the same masters and replicas, and each replica
     * must be linked to its master, before a test may start.
     */
    private boolean converged() {
        Set<String> firstView = null;
        for (RedisServer node : nodes) {
            Map<String, String> info = RedisServer.parseInfo((String) reply(node, "CLUSTER", "INFO"));
            if (!"ok".equals(info.get("cluster_state")) || !Integer.toString(SLOTS).equals(info.get("cluster_slots_assigned"))
                    || !Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))) {
                return false;
            }
            List<NodeLine> view = NodeLine.parseAll((String) reply(node, "CLUSTER", "NODES"));
            long masterCount = view.stream().filter(NodeLine::isMaster).count();
            long replicaCount = view.stream().filter(NodeLine::isReplica).count();
            if (view.size() != nodes.size() || masterCount != MASTERS || replicaCount != nodes.size() - MASTERS
                    || view.stream().anyMatch(l -> l.hasAnyFlag("fail", "fail?", "handshake", "noaddr"))) {
                return false;
            }
            Set<String> topology = view.stream().map(NodeLine::topologyKey).collect(Collectors.toSet());
            if (firstView == null) {
                firstView = topology;
            } else if (!firstView.equals(topology)) {
                return false;
            }
            if (node.role().equals("slave") && !"up".equals(node.info("replication").get("master_link_status"))) {
                return false;
            }
        }
        return true;
    }

    private List<RedisServer> runningNodesWithRole(String role) {
        return nodes.stream().filter(RedisServer::isRunning).filter(n -> n.role().equals(role)).toList();
    }

    private RedisServer anyRunningNode() {
        return nodes.stream().filter(RedisServer::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("No node of " + this + " is running"));
    }

    private RedisServer byPort(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("Port " + port + " is not a node of " + this));
    }

    /** The reply to a command that Redis never answers with nil, such as CLUSTER NODES, CLUSTER INFO or KEYSLOT. */
    private static Object reply(RedisServer node, String... args) {
        return Objects.requireNonNull(node.command(args), () -> String.join(" ", args) + " answered with nil");
    }

    private static void closeQuietly(RedisServer node) {
        try {
            node.close();
        } catch (RuntimeException e) {
            log.warn("Could not stop cluster node {}", node, e);
        }
    }

    /** One line of CLUSTER NODES: {@code <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot>...}. */
    private record NodeLine(String id, int port, Set<String> flags, String masterId, List<String> slots) {

        static List<NodeLine> parseAll(String clusterNodes) {
            return clusterNodes.lines().filter(l -> !l.isBlank()).map(NodeLine::parse).toList();
        }

        static NodeLine parse(String line) {
            String[] f = line.trim().split(" ");
            String address = f[1];
            int colon = address.lastIndexOf(':');
            int at = address.indexOf('@', colon);
            int port = Integer.parseInt(address.substring(colon + 1, at < 0 ? address.length() : at));
            return new NodeLine(f[0], port, new HashSet<>(Arrays.asList(f[2].split(","))), f[3],
                    Arrays.asList(f).subList(Math.min(8, f.length), f.length));
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isReplica() {
            return flags.contains("slave");
        }

        boolean hasAnyFlag(String... wanted) {
            return Arrays.stream(wanted).anyMatch(flags::contains);
        }

        boolean servesSlot(int slot) {
            for (String range : slots) {
                if (range.startsWith("[")) {
                    continue; // migrating/importing markers, not ownership
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                if (slot >= from && slot <= to) {
                    return true;
                }
            }
            return false;
        }

        /** Identity, role and master, without the per-viewer "myself" flag. */
        String topologyKey() {
            return id + (isMaster() ? " master " + String.join(",", slots) : " replica-of " + Objects.toString(masterId));
        }
    }
}
