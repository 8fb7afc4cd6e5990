package dev.rmq.faults;

import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.RestoreReport;
import dev.rmq.journal.jdbc.RestoreRequest;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Injects one fault at a time, undoes it, and measures its recovery: right after the injection (or, for a quorum
 * loss, once the quorum is back) a probe goes to every slot, and the recovery is from the injection until the
 * last of them was consumed. Each fault is written to the harness's event log as a
 * {@link HarnessEvent.FaultInjected} once it is over.
 */
final class FaultInjector {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(90);

    private final ConsumerFleet fleet;
    private final HarnessClients clients;
    private final Map<Deployment, RedisDeployment> redis;
    private final ZooKeeperEnsemble zookeeper;
    private final Probes probes;
    private final MidMessage midMessage;
    private final EventLog events;
    private final Random random;
    private final List<Map<String, Object>> unrecovered = new ArrayList<>();
    private final @Nullable JdbcJournal journal;
    private int pauses;

    /** @param journal the journal that restores the standalone Redis after a flush; null when the run has none */
    FaultInjector(ConsumerFleet fleet, HarnessClients clients, Map<Deployment, RedisDeployment> redis,
                  ZooKeeperEnsemble zookeeper, Probes probes, MidMessage midMessage, EventLog events, Random random,
                  @Nullable JdbcJournal journal) {
        this.fleet = fleet;
        this.clients = clients;
        this.redis = redis;
        this.zookeeper = zookeeper;
        this.probes = probes;
        this.midMessage = midMessage;
        this.events = events;
        this.random = random;
        this.journal = journal;
    }

    HarnessEvent.FaultInjected inject(int id, FaultKind kind) throws Exception {
        return switch (kind) {
            case KILL -> killConsumer(id);
            case STOP -> pauseConsumer(id);
            case REDIS_RESTART -> restartRedis(id);
            case REDIS_FLUSH -> flushRedis(id);
            case FAILOVER -> failover(id);
            case MASTER_KILL -> killMaster(id);
            case ZK_EXPIRE -> expireSession(id);
            case ZK_QUORUM -> loseQuorum(id);
            case NET_LATENCY -> slowLink(id);
            case NET_STALL -> stallLink(id, FaultKind.NET_STALL, Duration.ofMillis(1000 + random.nextInt(1000)));
            case NET_STALL_PAST_LEASE -> stallLink(id, FaultKind.NET_STALL_PAST_LEASE,
                    Workload.LEASE.plusMillis(1000 + random.nextInt(2000)));
            case NET_RESET -> resetLinks(id);
            case NET_REFUSE -> refuseLink(id);
            case ZK_PARTITION -> partitionFromZooKeeper(id);
            case SENTINEL_FAILOVER -> failSentinelMasterOver(id);
            case LISTENER_ERRORS -> throw new IllegalArgumentException("listener errors are not a discrete fault");
        };
    }

    /** What the coordination looked like after each fault whose probes were not all consumed in time. */
    List<Map<String, Object>> unrecovered() {
        return unrecovered;
    }

    /** SIGKILL of a consumer in the middle of a message, then a restart. */
    private HarnessEvent.FaultInjected killConsumer(int id) throws Exception {
        MidMessage.Busy busy = midMessage.await(id);
        ConsumerFleet.Consumer victim = busy != null ? busy.consumer() : fleet.pick(random);
        String target = victim.id();
        long inject = EventLog.nowMicros();
        victim.kill();
        CompletableFuture<Void> sent = probes.send(id);
        String detail = MidMessage.describe(busy, inject);
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(1500));
        victim.launch();
        victim.awaitReady();
        return finish(id, FaultKind.KILL, target, inject, EventLog.nowMicros(), Set.of(),
                detail + ", restarted as " + victim.id(), sent);
    }

    /**
     * SIGSTOP for longer than the lease and the ZooKeeper session, then SIGCONT. Every other pause, the first
     * included, strikes a consumer in the middle of a message, whose handler then outlives its lease: the
     * documented limit of exclusivity, which the checker verifies.
     */
    private HarnessEvent.FaultInjected pauseConsumer(int id) throws Exception {
        boolean midMessageWanted = pauses++ % 2 == 0;
        MidMessage.Busy busy = midMessageWanted ? midMessage.await(id) : null;
        ConsumerFleet.Consumer victim = busy != null ? busy.consumer() : fleet.pick(random);
        Duration pause = Duration.ofMillis(Workload.SESSION_TIMEOUT_MS + 1500 + random.nextInt(2500));
        long inject = EventLog.nowMicros();
        victim.pause();
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(pause.toMillis());
        long heal = victim.resume(inject);
        return finish(id, FaultKind.STOP, victim.id(), inject, heal, Set.of(), "stopped for " + (heal - inject) / 1000
                + " ms, " + MidMessage.describe(busy, inject), sent);
    }

    /** The Redis a fault strikes: the options take a fault only with a Redis mode that has it. */
    private RedisDeployment deployment(Deployment deployment) {
        return Objects.requireNonNull(redis.get(deployment), "this run has no " + deployment.cliName() + " Redis");
    }

    /** The rmq slots ({@code topic_index}) of one deployment's topics, to their store keys. */
    private static Map<String, String> storeKeys(Deployment deployment) {
        Map<String, String> keys = new TreeMap<>();
        KeyLayout layout = new KeyLayout("");
        for (TopicDefinition topic : Workload.topics(deployment)) {
            for (int slot = 0; slot < topic.slotAmount(); slot++) {
                keys.put(topic.name() + "_" + slot, layout.slot(topic.name(), slot).store());
            }
        }
        return keys;
    }

    private HarnessEvent.FaultInjected restartRedis(int id) throws Exception {
        RedisDeployment.Standalone standalone = (RedisDeployment.Standalone) deployment(Deployment.STANDALONE);
        Set<String> slots = storeKeys(Deployment.STANDALONE).keySet();
        long inject = EventLog.nowMicros();
        String how = standalone.takeDown();
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(300 + random.nextInt(1700));
        standalone.bringUp();
        long heal = EventLog.nowMicros();
        return finish(id, FaultKind.REDIS_RESTART, "standalone redis", inject, heal, slots, how + ", down "
                + (heal - inject) / 1000 + " ms, restarted on its AOF", sent);
    }

    /**
     * FLUSHALL on the standalone Redis, a pause in which consumers meet the empty Redis (fenced slots, lost
     * deliveries) and the producer sends on, then a restore from the journal: the fault is over once it returns.
     */
    private HarnessEvent.FaultInjected flushRedis(int id) throws Exception {
        if (journal == null) {
            throw new IllegalStateException("redis-flush needs the journal, which the run starts with the standalone Redis");
        }
        RedisDeployment.Standalone standalone = (RedisDeployment.Standalone) deployment(Deployment.STANDALONE);
        Set<String> slots = storeKeys(Deployment.STANDALONE).keySet();
        long inject = EventLog.nowMicros();
        standalone.flushAll();
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(300 + random.nextInt(1700));
        RestoreReport report = journal.restore(clients.rmq(Deployment.STANDALONE), RestoreRequest.all());
        long heal = EventLog.nowMicros();
        return finish(id, FaultKind.REDIS_FLUSH, "standalone redis", inject, heal, slots, "FLUSHALL, then a restore"
                + " put back " + report.restored() + " of " + report.examined() + " open journaled messages ("
                + report.present() + " already back, " + report.expired() + " expired) in " + report.took().toMillis()
                + " ms", sent);
    }

    private HarnessEvent.FaultInjected failover(int id) throws Exception {
        RedisDeployment.Cluster cluster = (RedisDeployment.Cluster) deployment(Deployment.CLUSTER);
        RedisServer replica = cluster.pickReplica(random);
        int master = RedisDeployment.Cluster.masterPortOf(replica);
        Set<String> slots = cluster.slotsServedBy(master, storeKeys(Deployment.CLUSTER));
        long inject = EventLog.nowMicros();
        CompletableFuture<Void> sent = probes.send(id);
        String detail = cluster.failover(replica);
        return finish(id, FaultKind.FAILOVER, "master :" + master, inject, EventLog.nowMicros(), slots,
                detail + ", which took over " + slots.size() + " rmq slot(s) from :" + master, sent);
    }

    private HarnessEvent.FaultInjected killMaster(int id) throws Exception {
        RedisDeployment.Cluster cluster = (RedisDeployment.Cluster) deployment(Deployment.CLUSTER);
        RedisServer victim = cluster.pickMaster(random);
        Set<String> slots = cluster.slotsServedBy(victim.port(), storeKeys(Deployment.CLUSTER));
        long inject = EventLog.nowMicros();
        cluster.kill(victim);
        CompletableFuture<Void> sent = probes.send(id);
        String detail = cluster.rejoin(victim);
        return finish(id, FaultKind.MASTER_KILL, "master :" + victim.port(), inject, EventLog.nowMicros(), slots,
                detail + "; it served " + slots.size() + " rmq slot(s)", sent);
    }

    private HarnessEvent.FaultInjected expireSession(int id) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        long inject = EventLog.nowMicros();
        victim.jvm().send("EXPIRE");
        String reply = victim.jvm().await("EXPIRE", Duration.ofSeconds(30));
        if (reply == null || !reply.startsWith("EXPIRED")) {
            throw new IllegalStateException("consumer " + victim.id() + " did not expire its session: " + reply);
        }
        CompletableFuture<Void> sent = probes.send(id);
        return finish(id, FaultKind.ZK_EXPIRE, victim.id(), inject, inject,
                Set.of(), "session expired (injectSessionExpiration); " + reply.substring("EXPIRED ".length()), sent);
    }

    /**
     * Kills two ZooKeeper servers for longer than a session, then restarts them. The probes go out once the quorum
     * is back: the consumers go on consuming until the surviving server notices the loss (a few ticks), so probes
     * sent at once would measure that moment instead of the outage; the recovery is from the injection until every
     * slot was consumed after the quorum returned.
     */
    private HarnessEvent.FaultInjected loseQuorum(int id) throws Exception {
        long inject = EventLog.nowMicros();
        String which = zookeeper.loseQuorum(random);
        TimeUnit.MILLISECONDS.sleep(Workload.SESSION_TIMEOUT_MS + 1000 + random.nextInt(3000));
        zookeeper.restoreQuorum();
        long heal = EventLog.nowMicros();
        CompletableFuture<Void> sent = probes.send(id);
        return finish(id, FaultKind.ZK_QUORUM, "zookeeper", inject, heal, Set.of(), which + " killed for "
                + (heal - inject) / 1000 + " ms, then restarted", sent);
    }

    /** Latency of 300 ms or 1 s each way on one consumer's link to the standalone Redis, for 3 to 5 s. */
    private HarnessEvent.FaultInjected slowLink(int id) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        Duration latency = Duration.ofMillis(random.nextBoolean() ? 300 : 1000);
        long inject = EventLog.nowMicros();
        victim.links().redis().latency(latency);
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(3000 + random.nextInt(2000));
        victim.links().redis().latency(Duration.ZERO);
        long heal = EventLog.nowMicros();
        return finish(id, FaultKind.NET_LATENCY, victim.id(), inject, heal, Set.of(), latency.toMillis()
                + " ms each way to Redis for " + (heal - inject) / 1000 + " ms", sent);
    }

    /** One consumer's link to the standalone Redis holds its bytes for {@code stall}, then delivers them late. */
    private HarnessEvent.FaultInjected stallLink(int id, FaultKind kind, Duration stall) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        long inject = EventLog.nowMicros();
        victim.links().redis().stall();
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(stall.toMillis());
        victim.links().redis().heal();
        long heal = EventLog.nowMicros();
        return finish(id, kind, victim.id(), inject, heal, Set.of(), "link to Redis stalled for " + (heal - inject) / 1000
                + " ms (lease " + Workload.LEASE.toMillis() + " ms), then its bytes delivered late", sent);
    }

    /** Resets every open connection of one consumer, to Redis and to ZooKeeper. */
    private HarnessEvent.FaultInjected resetLinks(int id) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        long inject = EventLog.nowMicros();
        victim.links().redis().resetAll();
        victim.links().zookeeper().forEach(TcpProxy::resetAll);
        CompletableFuture<Void> sent = probes.send(id);
        return finish(id, FaultKind.NET_RESET, victim.id(), inject, EventLog.nowMicros(), Set.of(),
                "every connection to Redis and ZooKeeper reset", sent);
    }

    /** Refuses one consumer's new connections to the standalone Redis for 2 to 4 s, after resetting its open ones. */
    private HarnessEvent.FaultInjected refuseLink(int id) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        long inject = EventLog.nowMicros();
        victim.links().redis().refuse().resetAll();
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(2000 + random.nextInt(2000));
        victim.links().redis().heal();
        long heal = EventLog.nowMicros();
        return finish(id, FaultKind.NET_REFUSE, victim.id(), inject, heal, Set.of(), "connections to Redis refused for "
                + (heal - inject) / 1000 + " ms", sent);
    }

    /**
     * Stalls one consumer's links to every ZooKeeper server for longer than its session, while it still reaches
     * Redis: it must stop taking messages at SUSPENDED and hand its slots over within the session.
     */
    private HarnessEvent.FaultInjected partitionFromZooKeeper(int id) throws Exception {
        ConsumerFleet.Consumer victim = fleet.pick(random);
        long inject = EventLog.nowMicros();
        victim.links().zookeeper().forEach(TcpProxy::stall);
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(Workload.SESSION_TIMEOUT_MS + 1500 + random.nextInt(2500));
        victim.links().zookeeper().forEach(TcpProxy::heal);
        long heal = EventLog.nowMicros();
        return finish(id, FaultKind.ZK_PARTITION, victim.id(), inject, heal, Set.of(), "cut off from ZooKeeper for "
                + (heal - inject) / 1000 + " ms (session " + Workload.SESSION_TIMEOUT_MS + " ms), Redis reachable", sent);
    }

    /** SIGKILL of the Sentinel deployment's master, its replica promoted, the old master back as its replica. */
    private HarnessEvent.FaultInjected failSentinelMasterOver(int id) throws Exception {
        RedisDeployment.Sentinel sentinel = (RedisDeployment.Sentinel) deployment(Deployment.SENTINEL);
        Set<String> slots = storeKeys(Deployment.SENTINEL).keySet();
        long inject = EventLog.nowMicros();
        CompletableFuture<Void> sent = probes.send(id);
        String detail = sentinel.failover();
        return finish(id, FaultKind.SENTINEL_FAILOVER, "sentinel master", inject, EventLog.nowMicros(), slots, detail, sent);
    }

    /** Waits for the fault's probes, and records the fault. */
    private HarnessEvent.FaultInjected finish(int id, FaultKind kind, String target, long inject, long heal,
                                              Set<String> slots, String detail, CompletableFuture<Void> sent)
            throws InterruptedException {
        long done = probes.awaitConsumed(id, PROBE_TIMEOUT);
        sent.cancel(false);
        if (done < 0) {
            Map<String, Object> snapshot = new LinkedHashMap<>();
            snapshot.put("fault", id + " " + kind.cliName());
            snapshot.put("probes_not_consumed", probes.notConsumed(id));
            snapshot.putAll(fleet.coordination(clients));
            unrecovered.add(snapshot);
        }
        HarnessEvent.FaultInjected fault = new HarnessEvent.FaultInjected(inject, id, kind.cliName(), target, heal,
                done < 0 ? -1 : done - inject, slots, detail);
        events.write(fault);
        return fault;
    }
}
