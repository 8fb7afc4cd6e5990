package dev.rmq.testsupport;

import dev.rmq.embedded.Poll;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.embedded.ServerFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Sentinel deployment on loopback: a master, a replica and three {@code redis-server --sentinel}
 * processes that monitor them with a quorum of two, each on a free port. Sentinels judge a master down after
 * {@value #DOWN_AFTER_MS} ms without a reply, so a failover takes a few seconds.
 *
 * <p>That period is three times Sentinel's own reconnection period on purpose. When a Sentinel switches to a
 * promoted master it starts the down-after clock at once, but reconnects to the new address at most once a second
 * after its last attempt on the dead one; with one second of down-after, its first PING to the new master could
 * be answered too late, the new master was judged down, and the votes the other Sentinels had cast against the
 * old master (which Sentinel keeps across the switch) made that judgement objective at once: a second failover,
 * back to the restarted old master, wiping what the promoted one had acknowledged.
 *
 * <p>{@link #killMaster()} is the failover a test needs: SIGKILL of the current master, then a wait until the
 * Sentinels name the promoted replica; {@link #rejoin(RedisServer)} restarts the old master and waits until the
 * Sentinels have turned it into a replica of the new one. Every process is stopped by {@link #close()}, by pid.
 */
public final class RedisSentinel implements AutoCloseable {

    /** The name the Sentinels monitor the master under. */
    public static final String MASTER_NAME = "rmq-master";
    static final int DOWN_AFTER_MS = 3_000;
    private static final int QUORUM = 2;
    private static final Duration FAILOVER_WAIT = Duration.ofSeconds(30);

    private final List<RedisServer> dataNodes;
    private final List<RedisServer> sentinels;
    private final Path configDir;

    private RedisSentinel(List<RedisServer> dataNodes, List<RedisServer> sentinels, Path configDir) {
        this.dataNodes = dataNodes;
        this.sentinels = sentinels;
        this.configDir = configDir;
    }

    /** Starts the master, its replica and three Sentinels, and waits until the Sentinels see both. */
    public static RedisSentinel start() {
        List<RedisServer> data = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        Path configDir = ServerFiles.createDir(null);
        try {
            RedisServer master = RedisServer.start();
            data.add(master);
            data.add(RedisServer.start(RedisServerOptions.defaults()
                    .withArgs("--replicaof", RedisServer.HOST, Integer.toString(master.port()))));
            for (int i = 0; i < 3; i++) {
                Path dir = Files.createDirectories(configDir.resolve("sentinel-" + i));
                Path config = dir.resolve("sentinel.conf");
                Files.writeString(config, "sentinel monitor " + MASTER_NAME + " " + RedisServer.HOST + " " + master.port()
                        + " " + QUORUM + "\n"
                        + "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MS + "\n"
                        + "sentinel failover-timeout " + MASTER_NAME + " 3000\n"
                        + "sentinel parallel-syncs " + MASTER_NAME + " 1\n");
                sentinels.add(RedisServer.start(RedisServerOptions.defaults().withDataDir(dir).withConfigFile(config)
                        .withArgs("--sentinel")));
            }
            RedisSentinel deployment = new RedisSentinel(data, sentinels, configDir);
            deployment.awaitSeen(master, 1);
            return deployment;
        } catch (IOException e) {
            closeAll(data, sentinels, configDir);
            throw new UncheckedIOException("could not write the Sentinels' configuration in " + configDir, e);
        } catch (RuntimeException e) {
            closeAll(data, sentinels, configDir);
            throw e;
        }
    }

    /** The Sentinels' addresses, {@code redis://127.0.0.1:port}, for a client's Sentinel configuration. */
    public List<String> sentinelAddresses() {
        return sentinels.stream().map(RedisServer::address).toList();
    }

    /** The Sentinels' {@code host:port}, for {@code rmq.redis.sentinel.nodes}. */
    public List<String> sentinelNodes() {
        return sentinels.stream().map(s -> s.host() + ":" + s.port()).toList();
    }

    /** The data node the Sentinels name as master now. */
    public RedisServer master() {
        int port = masterPortSeenBy(sentinels.get(0));
        return dataNodes.stream().filter(node -> node.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("the Sentinels name port " + port + " as master, not a node of"
                        + " this deployment"));
    }

    /** The master and the replica, in start order. */
    public List<RedisServer> dataNodes() {
        return List.copyOf(dataNodes);
    }

    /**
     * SIGKILL of the master, then waits until every Sentinel names the replica as the new master and it answers
     * as one. Returns the node that was killed, for {@link #rejoin(RedisServer)}.
     */
    public RedisServer killMaster() {
        RedisServer old = master();
        RedisServer promoted = dataNodes.stream().filter(node -> node != old).findFirst().orElseThrow();
        old.kill();
        Poll.until(FAILOVER_WAIT, () -> sentinels.stream().allMatch(s -> masterPortSeenBy(s) == promoted.port())
                && "master".equals(promoted.role()), () -> "the Sentinels did not promote " + promoted + " after " + old
                + " was killed");
        return old;
    }

    /** Restarts a killed master and waits until it serves as the new master's replica, in sync. */
    public void rejoin(RedisServer old) {
        old.restart();
        RedisServer master = master();
        Poll.until(FAILOVER_WAIT, () -> "slave".equals(old.role())
                && "up".equals(old.info("replication").get("master_link_status")),
                () -> old + " did not rejoin as a replica of " + master + ": " + old.info("replication")
                        + "; the Sentinels' switches: " + switches());
        awaitSeen(master, 1);
    }

    /**
     * Waits until every Sentinel knows the master, {@code replicas} replicas of it and the two other Sentinels
     * (clients such as Redisson check that list before they connect).
     */
    private void awaitSeen(RedisServer master, int replicas) {
        Poll.until(FAILOVER_WAIT, () -> sentinels.stream().allMatch(s -> {
            if (masterPortSeenBy(s) != master.port()) {
                return false;
            }
            Object seen = s.command("SENTINEL", "replicas", MASTER_NAME);
            Object peers = s.command("SENTINEL", "sentinels", MASTER_NAME);
            return seen instanceof List<?> list && list.size() >= replicas
                    && peers instanceof List<?> others && others.size() >= 2;
        }), () -> "the Sentinels did not all see master " + master + " with " + replicas + " replica(s) and each other");
    }

    /** Each Sentinel's {@code +switch-master} lines, to tell a failover the test did not ask for. */
    private List<String> switches() {
        List<String> lines = new ArrayList<>();
        for (RedisServer sentinel : sentinels) {
            try (var log = Files.lines(sentinel.logFile())) {
                log.filter(line -> line.contains("+switch-master")).forEach(line -> lines.add(sentinel.port() + ": " + line));
            } catch (IOException | UncheckedIOException e) {
                lines.add(sentinel.port() + ": log unreadable (" + e.getMessage() + ")");
            }
        }
        return lines;
    }

    private static int masterPortSeenBy(RedisServer sentinel) {
        Object reply = sentinel.command("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
        if (reply instanceof List<?> address && address.size() == 2) {
            return Integer.parseInt(String.valueOf(address.get(1)));
        }
        return -1;
    }

    @Override
    public void close() {
        closeAll(dataNodes, sentinels, configDir);
    }

    private static void closeAll(List<RedisServer> data, List<RedisServer> sentinels, Path configDir) {
        try {
            for (RedisServer sentinel : sentinels) {
                sentinel.close();
            }
            for (RedisServer node : data) {
                node.close();
            }
        } finally {
            ServerFiles.deleteRecursively(configDir);
        }
    }

    @Override
    public String toString() {
        return "Redis Sentinel (master and replica " + dataNodes.stream().map(RedisServer::port).toList() + ", sentinels "
                + sentinels.stream().map(RedisServer::port).toList() + ")";
    }
}
