package dev.rmq.faults;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.faults.InvariantChecker.DeadEntry;
import dev.rmq.faults.InvariantChecker.Incarnation;
import dev.rmq.faults.Workload.Payload;
import dev.rmq.metrics.SlotStats;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.testsupport.RedisServer;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The fault harness: starts ZooKeeper (3 servers, in this JVM: Curator's TestingCluster), Redis (standalone,
 * Cluster or both), N consumer JVMs and a producer JVM on loopback, injects faults at random times for the
 * requested duration, stops the producer, lets the consumers drain what is left, reads the dead queue, and
 * hands every log to {@link InvariantChecker}. It prints the result and writes it as JSON; it exits with 0 when
 * every invariant held, 1 when one broke, 2 when the harness itself failed. Run it with
 * {@code rmq-faults/faults}; see {@link HarnessOptions#USAGE}.
 *
 * <p>A kill, and every other pause, hits a consumer in the middle of a message: the harness waits up to 3 s
 * for a handler of the workload's slow messages to be running with at least 150 ms of work left, and
 * otherwise sends a slow message of its own (1.5 s of work, key {@code n.bait.<fault id>}, accounted for like
 * any other send through {@code harness.events}) and strikes whichever consumer starts it.
 */
public final class FaultHarness {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(150);
    private static final String CHILD_HEAP = "256m";
    /** A handler counts as mid-message for a kill or pause once it has run this long and has this much work left. */
    private static final long MID_MESSAGE_RUN_MICROS = 50_000;
    private static final long MID_MESSAGE_LEFT_MS = 150;
    private static final int BAIT_WORK_MS = 1500;
    /** The harness's own sends (bait) take seqs from here, far above the producer's. */
    static final long HARNESS_SEQ_BASE = 1L << 40;
    /** A run at least this long fails when none of its kills hit a consumer in the middle of a message. */
    private static final Duration LONG_RUN = Duration.ofMinutes(5);

    private final HarnessOptions options;
    private final Path dir;
    private final Random random;
    private final long startNanos = System.nanoTime();
    private final List<ConsumerHandle> consumers = new ArrayList<>();
    private final Map<String, Life> lives = new ConcurrentHashMap<>();
    private final Map<String, Path> eventLogs = new ConcurrentHashMap<>();
    private final List<FaultRecord> faults = new ArrayList<>();
    private final List<String> harnessErrors = new ArrayList<>();
    private final List<Map<String, Object>> unrecovered = new ArrayList<>();
    private ConsumerTail tail;
    private final Map<Deployment, RedisDeployment> redis = new EnumMap<>(Deployment.class);
    private HarnessClients clients;
    private EventLog harnessEvents;
    private ZooKeeperEnsemble zookeeper;
    private Probes probes;
    private int pauses;
    private int baits;

    /** The outcome of a run: the figures (the JSON result), the details, and what failed. */
    record Outcome(Map<String, Object> figures, Map<String, Object> details, List<String> failures, Path out,
                          Path workDir) {

        boolean passed() {
            return failures.isEmpty();
        }
    }

    /** A consumer process's life, as the checker needs it. */
    private static final class Life {
        final String id;
        final long start;
        volatile long end = -1;
        volatile boolean killed;
        final List<long[]> pauses = Collections.synchronizedList(new ArrayList<>());

        Life(String id, long start) {
            this.id = id;
            this.start = start;
        }

        Incarnation freeze() {
            return new Incarnation(id, start, end, killed, List.copyOf(pauses));
        }
    }

    /** One of the N consumers, across its restarts: c2-1, then c2-2 after a kill, and so on. */
    private final class ConsumerHandle {
        final String name;
        int incarnation;
        ChildJvm jvm;

        ConsumerHandle(String name) {
            this.name = name;
        }

        String id() {
            return name + "-" + incarnation;
        }

        void launch() {
            incarnation++;
            String id = id();
            Path events = dir.resolve("consumer-" + id + ".events");
            eventLogs.put(id, events);
            tail.follow(id, events);
            lives.put(id, new Life(id, Workload.nowMicros()));
            List<String> args = new ArrayList<>(List.of("--name", name, "--incarnation", Integer.toString(incarnation),
                    "--zk", zookeeper.connectString(), "--log", events.toString(),
                    "--error-rate", Double.toString(options.errorRate()), "--threads", Integer.toString(options.threads())));
            args.addAll(ChildArgs.redisArgs(redisAddresses()));
            jvm = ChildJvm.start("consumer " + id, ConsumerMain.class, args, stderr(id), CHILD_HEAP);
        }

        void awaitReady() throws InterruptedException {
            if (jvm.await("READY", START_TIMEOUT) == null) {
                throw new IllegalStateException("consumer " + id() + " did not start within " + START_TIMEOUT + "; see "
                        + stderr(id()));
            }
        }

        Life life() {
            return lives.get(id());
        }
    }

    private Path stderr(String incarnation) {
        return dir.resolve("consumer-" + incarnation + ".log");
    }

    private Map<Deployment, List<String>> redisAddresses() {
        Map<Deployment, List<String>> addresses = new EnumMap<>(Deployment.class);
        redis.forEach((deployment, r) -> addresses.put(deployment, r.addresses()));
        return addresses;
    }

    private FaultHarness(HarnessOptions options, Path dir) {
        this.options = options;
        this.dir = dir;
        this.random = new Random(options.seed());
    }

    public static void main(String[] args) {
        HarnessOptions options;
        try {
            options = HarnessOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() == null || e.getMessage().isEmpty()) {
                System.out.print(HarnessOptions.USAGE);
                System.exit(0);
                return;
            }
            System.err.println("error: " + e.getMessage());
            System.err.print(HarnessOptions.USAGE);
            System.exit(2);
            return;
        }
        int code;
        try {
            Path dir = workDir(options);
            // before anything logs: the harness's own log (ZooKeeper, Redis helpers) goes to the run directory
            System.setProperty("org.slf4j.simpleLogger.logFile", dir.resolve("harness.log").toString());
            Outcome outcome = new FaultHarness(options, dir).execute();
            code = outcome.passed() ? 0 : 1;
        } catch (Exception e) {
            System.err.println("the fault harness failed: " + e);
            e.printStackTrace();
            code = 2;
        } finally {
            ChildJvm.killAll();
        }
        System.exit(code);
    }

    /** Runs the harness in this JVM (the tests do) and returns its outcome; the result file is written too. */
    static Outcome run(HarnessOptions options) throws Exception {
        try {
            return new FaultHarness(options, workDir(options)).execute();
        } finally {
            ChildJvm.killAll();
        }
    }

    private static Path workDir(HarnessOptions options) throws IOException {
        if (options.workDir() != null) {
            return Files.createDirectories(options.workDir());
        }
        return Files.createTempDirectory("rmq-faults-");
    }

    // ---- the run -----------------------------------------------------------------------------------------------

    private Outcome execute() throws Exception {
        say("fault harness: " + options.commandLine());
        say("logs in " + dir);
        Outcome outcome;
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(); ConsumerTail t = new ConsumerTail()) {
            zookeeper = zk;
            tail = t;
            say("ZooKeeper ensemble of 3 servers in this JVM (Curator TestingCluster) at " + zk.connectString());
            try {
                for (Deployment deployment : options.redis().deployments()) {
                    RedisDeployment r = RedisDeployment.start(deployment);
                    redis.put(deployment, r);
                    say(r.describe());
                }
                clients = HarnessClients.connect(redisAddresses(), 1);
                harnessEvents = new EventLog(dir.resolve("harness.events"));
                outcome = drive();
            } finally {
                ChildJvm.killAll();
                if (probes != null) {
                    probes.close();
                }
                if (clients != null) {
                    clients.close();
                }
                if (harnessEvents != null) {
                    harnessEvents.close();
                }
                redis.values().forEach(RedisDeployment::close);
            }
        }
        if (outcome.passed() && !options.keepLogs()) {
            deleteRecursively(dir);
        } else {
            say("logs kept in " + dir);
        }
        return outcome;
    }

    private Outcome drive() throws Exception {
        probes = new Probes(clients, tail);
        long runStart = Workload.nowMicros();

        for (int i = 1; i <= options.consumers(); i++) {
            ConsumerHandle consumer = new ConsumerHandle("c" + i);
            consumers.add(consumer);
            consumer.launch();
        }
        for (ConsumerHandle consumer : consumers) {
            consumer.awaitReady();
        }
        awaitAllSlotsOwned();
        say(options.consumers() + " consumers own every slot of " + clients.topics().size() + " topics");

        Path producerLog = dir.resolve("producer.events");
        List<String> producerArgs = new ArrayList<>(List.of("--log", producerLog.toString(), "--seed",
                Long.toString(options.seed()), "--rate", Double.toString(options.burstsPerSecond()), "--durable",
                options.durable()));
        producerArgs.addAll(ChildArgs.redisArgs(redisAddresses()));
        ChildJvm producer = ChildJvm.start("producer", ProducerMain.class, producerArgs, dir.resolve("producer.log"),
                CHILD_HEAP);
        if (producer.await("READY", START_TIMEOUT) == null) {
            throw new IllegalStateException("the producer did not start; see " + dir.resolve("producer.log"));
        }
        say("producer started (" + options.burstsPerSecond() + " keys/s, durable sends: " + options.durable() + ")");

        injectUntil(System.nanoTime() + options.duration().toNanos());

        say("stopping the producer");
        producer.send("STOP");
        String stopped = producer.await("STOPPED", Duration.ofSeconds(120));
        producer.exit("EXIT", Duration.ofSeconds(10));
        if (stopped == null) {
            harnessErrors.add("the producer did not stop within 120 s");
        }
        Map<String, Object> drain = drain();
        say("drain: " + drain.get("drained") + ", " + drain.get("waiting_left") + " waiting and " + drain.get("in_flight_left")
                + " in flight left after " + drain.get("seconds") + " s");
        drain.put("coordination_at_end", coordinationSnapshot(new LinkedHashMap<>()));
        for (ConsumerHandle consumer : consumers) {
            consumer.jvm.send("EXIT");
        }
        for (ConsumerHandle consumer : consumers) {
            if (!consumer.jvm.exit("EXIT", Duration.ofSeconds(30))) {
                say("consumer " + consumer.id() + " did not exit in time; killed");
            }
            consumer.life().end = Workload.nowMicros();
        }
        List<DeadEntry> dead = readDeadQueue();
        long runEnd = Workload.nowMicros();

        Map<String, Incarnation> incarnations = new LinkedHashMap<>();
        lives.forEach((id, life) -> incarnations.put(id, life.freeze()));
        Map<String, Path> stderr = new TreeMap<>();
        lives.keySet().forEach(id -> stderr.put(id, stderr(id)));
        InvariantChecker.Result result = InvariantChecker.check(new InvariantChecker.Inputs(
                List.of(producerLog, dir.resolve("harness.events")), new LinkedHashMap<>(eventLogs), stderr, incarnations,
                List.copyOf(faults), dead, runEnd));
        return report(result, drain, runStart, runEnd);
    }

    private void awaitAllSlotsOwned() throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper.connectString(), 10_000, 5_000,
                new ExponentialBackoffRetry(100, 5))) {
            curator.start();
            Map<Deployment, RmqCoordinator> observers = new EnumMap<>(Deployment.class);
            try {
                for (Deployment deployment : clients.deployments()) {
                    RmqCoordinator observer = RmqCoordinator.builder(curator, clients.rmq(deployment).context())
                            .instanceId("harness-observer").origin("fault harness").build();
                    observer.start();
                    observers.put(deployment, observer);
                }
                long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
                while (true) {
                    boolean all = true;
                    for (TopicDefinition topic : clients.topics()) {
                        RmqCoordinator observer = observers.get(Workload.deploymentOf(topic.name()));
                        all &= observer.owners(topic.name()).size() == topic.slotAmount();
                    }
                    if (all) {
                        return;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("the consumers did not take every slot within " + START_TIMEOUT);
                    }
                    TimeUnit.MILLISECONDS.sleep(200);
                }
            } finally {
                observers.values().forEach(RmqCoordinator::close);
            }
        }
    }

    // ---- faults ------------------------------------------------------------------------------------------------

    private void injectUntil(long deadlineNanos) throws Exception {
        List<FaultKind> kinds = options.discreteFaults();
        Deque<FaultKind> cycle = new ArrayDeque<>();
        int id = 0;
        while (true) {
            long gapNanos = options.gapMin().toNanos()
                    + (long) (random.nextDouble() * (options.gapMax().toNanos() - options.gapMin().toNanos()));
            // the first round of faults always completes, so that a short run injects each kind at least once
            boolean firstRoundDone = id >= kinds.size();
            long wake = firstRoundDone ? Math.min(deadlineNanos, System.nanoTime() + gapNanos) : System.nanoTime() + gapNanos;
            TimeUnit.NANOSECONDS.sleep(Math.max(0, wake - System.nanoTime()));
            if (firstRoundDone && System.nanoTime() - deadlineNanos >= 0) {
                return;
            }
            if (kinds.isEmpty()) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, deadlineNanos - System.nanoTime()));
                return;
            }
            if (cycle.isEmpty()) {
                List<FaultKind> shuffled = new ArrayList<>(kinds);
                Collections.shuffle(shuffled, random);
                cycle.addAll(shuffled);
            }
            FaultKind kind = cycle.poll();
            id++;
            try {
                FaultRecord record = inject(id, kind);
                faults.add(record);
                say(String.format("fault %d %s on %s: %s; %s", id, kind.cliName(), record.target(), record.detail(),
                        record.recoveryMicros() < 0 ? "NOT RECOVERED within " + PROBE_TIMEOUT.toSeconds() + " s"
                                : "every slot consumed again after " + record.recoveryMicros() / 1000 + " ms"));
            } catch (IllegalStateException e) {
                harnessErrors.add("fault " + id + " " + kind.cliName() + ": " + e.getMessage());
                say("fault " + id + " " + kind.cliName() + " could not be injected or undone: " + e.getMessage());
            }
        }
    }

    private FaultRecord inject(int id, FaultKind kind) throws Exception {
        return switch (kind) {
            case KILL -> killConsumer(id);
            case STOP -> pauseConsumer(id);
            case REDIS_RESTART -> restartRedis(id);
            case FAILOVER -> failover(id);
            case MASTER_KILL -> killMaster(id);
            case ZK_EXPIRE -> expireSession(id);
            case ZK_QUORUM -> loseQuorum(id);
            case LISTENER_ERRORS -> throw new IllegalArgumentException("listener errors are not a discrete fault");
        };
    }

    private ConsumerHandle pickConsumer() {
        return consumers.get(random.nextInt(consumers.size()));
    }

    /** SIGKILL of a consumer in the middle of a message (see {@link #awaitBusyConsumer}), then a restart. */
    private FaultRecord killConsumer(int id) throws Exception {
        Busy busy = awaitBusyConsumer(id);
        ConsumerHandle victim = busy != null ? busy.consumer() : pickConsumer();
        String target = victim.id();
        long inject = Workload.nowMicros();
        victim.jvm.kill();
        Life life = victim.life();
        life.end = Workload.nowMicros();
        life.killed = true;
        CompletableFuture<Void> sent = probes.send(id);
        String detail = describe(busy, inject);
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(1500));
        victim.launch();
        victim.awaitReady();
        return finish(id, FaultKind.KILL, target, inject, Workload.nowMicros(), Set.of(),
                detail + ", restarted as " + victim.id(), sent);
    }

    /**
     * SIGSTOP for longer than the lease and the ZooKeeper session, then SIGCONT. Every other pause, the first
     * included, strikes a consumer in the middle of a message, whose handler then outlives its lease: the
     * documented limit of exclusivity, which the checker verifies.
     */
    private FaultRecord pauseConsumer(int id) throws Exception {
        boolean midMessage = pauses++ % 2 == 0;
        Busy busy = midMessage ? awaitBusyConsumer(id) : null;
        ConsumerHandle victim = busy != null ? busy.consumer() : pickConsumer();
        long pauseMs = Workload.SESSION_TIMEOUT_MS + 1500 + random.nextInt(2500);
        long inject = Workload.nowMicros();
        victim.jvm.pause();
        long[] pause = {inject, Long.MAX_VALUE};
        victim.life().pauses.add(pause);
        CompletableFuture<Void> sent = probes.send(id);
        TimeUnit.MILLISECONDS.sleep(pauseMs);
        victim.jvm.resume();
        long heal = Workload.nowMicros();
        pause[1] = heal;
        return finish(id, FaultKind.STOP, victim.id(), inject, heal, Set.of(), "stopped for " + (heal - inject) / 1000
                + " ms, " + describe(busy, inject), sent);
    }

    /** A consumer found in the middle of a message. */
    private record Busy(ConsumerHandle consumer, String worker, ConsumerTail.Handler handler) {
    }

    /**
     * A consumer in the middle of a message with work left: one running a slow message of the workload, waited
     * for up to 3 s, or else the one that starts a slow message the harness sends for the purpose (waited for up
     * to 20 s). Null when neither came.
     */
    private Busy awaitBusyConsumer(int faultId) throws InterruptedException {
        Busy busy = pollBusy(null, Duration.ofSeconds(3));
        if (busy != null) {
            return busy;
        }
        String bait = sendBait(faultId);
        return bait == null ? null : pollBusy(bait, Duration.ofSeconds(20));
    }

    private Busy pollBusy(String key, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            long now = Workload.nowMicros();
            List<Busy> found = new ArrayList<>();
            for (ConsumerHandle consumer : consumers) {
                tail.openHandlers(consumer.id()).forEach((worker, handler) -> {
                    if ((key == null || handler.key().equals(key)) && now - handler.startMicros() >= MID_MESSAGE_RUN_MICROS
                            && handler.remainingMs(now) >= MID_MESSAGE_LEFT_MS) {
                        found.add(new Busy(consumer, worker, handler));
                    }
                });
            }
            if (!found.isEmpty()) {
                return found.get(random.nextInt(found.size()));
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return null;
    }

    /**
     * Sends one slow message ({@value #BAIT_WORK_MS} ms of work, due at once) to a random slot of a random topic,
     * and records the send in {@code harness.events} in the producer's format, so that the checker accounts for it.
     * Returns its key, or null when the send failed.
     */
    private String sendBait(int faultId) {
        List<TopicDefinition> topics = clients.topics();
        TopicDefinition topic = topics.get(random.nextInt(topics.size()));
        String key = Workload.PLAIN_PREFIX + "bait." + faultId;
        long seq = HARNESS_SEQ_BASE + baits++;
        long value = switch (topic.type()) {
            case RANGE_MERGE -> 1;
            case PRIORITY -> OutgoingMessage.MAX_PRIORITY;
            case FIXED_TIME -> System.currentTimeMillis() + 100;
        };
        long fixed = topic.type() == dev.rmq.topic.TopicType.FIXED_TIME ? value : 0;
        String payload = Payload.message(seq, BAIT_WORK_MS, false, fixed).encode();
        OutgoingMessage message = switch (topic.type()) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofMillis(value));
            case PRIORITY -> OutgoingMessage.priority(topic.name(), payload, value);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), payload, Instant.ofEpochMilli(value));
        };
        long start = Workload.nowMicros();
        try {
            SendReceipt receipt = clients.forTopic(topic.name()).producer().send(message.withKey(key));
            harnessEvents.write("S", seq, receipt.topic(), receipt.key(), receipt.slot(), receipt.merged() ? 1 : 0, 0, start,
                    Workload.nowMicros(), value, "-");
            return key;
        } catch (RuntimeException e) {
            harnessEvents.write("F", seq, topic.name(), key, -1, -1, 0, start, Workload.nowMicros(), value,
                    EventLog.field(e.getClass().getSimpleName()));
            return null;
        }
    }

    private static String describe(Busy busy, long at) {
        if (busy == null) {
            return "no handler found running";
        }
        ConsumerTail.Handler handler = busy.handler();
        return "mid-message (" + handler.key() + " on " + busy.worker() + ", " + (at - handler.startMicros()) / 1000
                + " ms into " + handler.workMs() + " ms of work)";
    }

    /** The rmq slots ({@code topic_index}) of one deployment's topics, to their store keys. */
    private Map<String, String> storeKeys(Deployment deployment) {
        Map<String, String> keys = new TreeMap<>();
        RmqClient rmq = clients.rmq(deployment);
        for (TopicDefinition topic : Workload.topics(deployment)) {
            for (int slot = 0; slot < topic.slotAmount(); slot++) {
                keys.put(topic.name() + "_" + slot, rmq.context().keys().slot(topic.name(), slot).store());
            }
        }
        return keys;
    }

    private FaultRecord restartRedis(int id) throws Exception {
        RedisDeployment.Standalone standalone = (RedisDeployment.Standalone) redis.get(Deployment.STANDALONE);
        Set<String> slots = storeKeys(Deployment.STANDALONE).keySet();
        long inject = Workload.nowMicros();
        String how = standalone.takeDown();
        CompletableFuture<Void> sent = probes.send(id);
        long downMs = 300 + random.nextInt(1700);
        TimeUnit.MILLISECONDS.sleep(downMs);
        standalone.bringUp();
        long heal = Workload.nowMicros();
        return finish(id, FaultKind.REDIS_RESTART, "standalone redis", inject, heal, slots, how + ", down "
                + (heal - inject) / 1000 + " ms, restarted on its AOF", sent);
    }

    private FaultRecord failover(int id) throws Exception {
        RedisDeployment.Cluster cluster = (RedisDeployment.Cluster) redis.get(Deployment.CLUSTER);
        RedisServer replica = cluster.pickReplica(random);
        int master = RedisDeployment.Cluster.masterPortOf(replica);
        Set<String> slots = cluster.slotsServedBy(master, storeKeys(Deployment.CLUSTER));
        long inject = Workload.nowMicros();
        CompletableFuture<Void> sent = probes.send(id);
        String detail = cluster.failover(replica);
        return finish(id, FaultKind.FAILOVER, "master :" + master, inject, Workload.nowMicros(), slots,
                detail + ", which took over " + slots.size() + " rmq slot(s) from :" + master, sent);
    }

    private FaultRecord killMaster(int id) throws Exception {
        RedisDeployment.Cluster cluster = (RedisDeployment.Cluster) redis.get(Deployment.CLUSTER);
        RedisServer victim = cluster.pickMaster(random);
        Set<String> slots = cluster.slotsServedBy(victim.port(), storeKeys(Deployment.CLUSTER));
        long inject = Workload.nowMicros();
        cluster.kill(victim);
        CompletableFuture<Void> sent = probes.send(id);
        String detail = cluster.rejoin(victim);
        return finish(id, FaultKind.MASTER_KILL, "master :" + victim.port(), inject, Workload.nowMicros(), slots,
                detail + "; it served " + slots.size() + " rmq slot(s)", sent);
    }

    private FaultRecord expireSession(int id) throws Exception {
        ConsumerHandle victim = pickConsumer();
        long inject = Workload.nowMicros();
        victim.jvm.send("EXPIRE");
        String reply = victim.jvm.await("EXPIRE", Duration.ofSeconds(30));
        if (reply == null || !reply.startsWith("EXPIRED")) {
            throw new IllegalStateException("consumer " + victim.id() + " did not expire its session: " + reply);
        }
        CompletableFuture<Void> sent = probes.send(id);
        return finish(id, FaultKind.ZK_EXPIRE, victim.id(), inject, inject, Set.of(),
                "session expired (injectSessionExpiration); " + reply.substring("EXPIRED ".length()), sent);
    }

    /**
     * Kills two ZooKeeper servers for longer than a session, then restarts them. The probes go out once the quorum
     * is back: the consumers go on consuming until the surviving server notices the loss (a few ticks), so probes
     * sent at once would measure that moment instead of the outage; the recovery is from the injection until every
     * slot was consumed after the quorum returned.
     */
    private FaultRecord loseQuorum(int id) throws Exception {
        long inject = Workload.nowMicros();
        String which = zookeeper.loseQuorum(random);
        long outageMs = Workload.SESSION_TIMEOUT_MS + 1000 + random.nextInt(3000);
        TimeUnit.MILLISECONDS.sleep(outageMs);
        zookeeper.restoreQuorum();
        long heal = Workload.nowMicros();
        CompletableFuture<Void> sent = probes.send(id);
        return finish(id, FaultKind.ZK_QUORUM, "zookeeper", inject, heal, Set.of(), which + " killed for "
                + (heal - inject) / 1000 + " ms, then restarted", sent);
    }

    /** Adds what each consumer says it holds, and what ZooKeeper and Redis hold, to {@code snapshot}. */
    private Map<String, Object> coordinationSnapshot(Map<String, Object> snapshot) throws InterruptedException {
        for (ConsumerHandle consumer : consumers) {
            consumer.jvm.send("STATUS");
            String status = consumer.jvm.await("STATUS", Duration.ofSeconds(10));
            snapshot.put(consumer.id(), status == null ? "(no answer)" : status.substring("STATUS ".length()));
        }
        snapshot.put("zookeeper_and_redis", CoordinationSnapshot.take(zookeeper.connectString(), clients));
        return snapshot;
    }

    /** Waits for the fault's probes and records it. */
    private FaultRecord finish(int id, FaultKind kind, String target, long inject, long heal, Set<String> slots,
                               String detail, CompletableFuture<Void> sent) throws InterruptedException {
        long done = probes.awaitConsumed(id, PROBE_TIMEOUT);
        sent.cancel(false);
        if (done < 0) {
            Map<String, Object> snapshot = new LinkedHashMap<>();
            snapshot.put("fault", id + " " + kind.cliName());
            snapshot.put("probes_not_consumed", probes.keys(id).stream().filter(k -> tail.probeDone(k) == null).toList());
            unrecovered.add(coordinationSnapshot(snapshot));
        }
        long recovery = done < 0 ? -1 : done - inject;
        return new FaultRecord(id, kind, target, inject, heal, recovery, slots, detail);
    }

    // ---- the end of a run --------------------------------------------------------------------------------------

    /** Waits until nothing waits and nothing is in flight in any topic (three checks in a row, a second apart). */
    private Map<String, Object> drain() throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        long start = System.nanoTime();
        int quiet = 0;
        long waiting = -1;
        long inFlight = -1;
        while (System.nanoTime() - deadline < 0) {
            try {
                waiting = 0;
                inFlight = 0;
                for (TopicDefinition topic : clients.topics()) {
                    SlotStats totals = clients.forTopic(topic.name()).inspector().totals(topic.name());
                    waiting += totals.backlog();
                    inFlight += totals.inFlight();
                }
                quiet = waiting == 0 && inFlight == 0 ? quiet + 1 : 0;
            } catch (RuntimeException e) {
                quiet = 0;
            }
            if (quiet >= 3) {
                break;
            }
            TimeUnit.SECONDS.sleep(1);
        }
        Map<String, Object> drain = new LinkedHashMap<>();
        drain.put("drained", quiet >= 3);
        drain.put("seconds", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        drain.put("waiting_left", waiting);
        drain.put("in_flight_left", inFlight);
        if (quiet < 3) {
            harnessErrors.add("the queues did not drain within " + DRAIN_TIMEOUT.toSeconds() + " s: " + waiting
                    + " waiting, " + inFlight + " in flight");
        }
        return drain;
    }

    private List<DeadEntry> readDeadQueue() {
        List<DeadEntry> dead = new ArrayList<>();
        for (TopicDefinition topic : clients.topics()) {
            RmqClient rmq = clients.forTopic(topic.name());
            for (int slot = 0; slot < topic.slotAmount(); slot++) {
                for (long offset = 0; ; offset += RmqDeadQueue.MAX_PAGE) {
                    List<DeadMessage> page = rmq.deadQueue().list(topic.name(), slot, offset, RmqDeadQueue.MAX_PAGE);
                    for (DeadMessage m : page) {
                        dead.add(new DeadEntry(m.topic(), m.slot(), m.key(), m.payloadText(), m.lastError(), m.attempts()));
                    }
                    if (page.size() < RmqDeadQueue.MAX_PAGE) {
                        break;
                    }
                }
            }
        }
        return dead;
    }

    private Outcome report(InvariantChecker.Result result, Map<String, Object> drain, long runStart, long runEnd)
            throws IOException {
        List<String> failures = new ArrayList<>(result.failures());
        failures.addAll(harnessErrors);
        if (result.figure("sent") == 0 || result.figure("consumed_unique") == 0) {
            failures.add("no workload to judge: " + result.figure("sent") + " sent, " + result.figure("consumed_unique")
                    + " consumed");
        }
        if (options.duration().compareTo(LONG_RUN) >= 0 && options.faults().contains(FaultKind.KILL)
                && result.figure("kills_mid_message") == 0) {
            failures.add("no kill hit a consumer in the middle of a message in a run of " + options.duration().toMinutes()
                    + " minutes");
        }

        Map<String, Object> details = new LinkedHashMap<>();
        details.put("verdict", failures.isEmpty() ? "PASS" : "FAIL");
        details.put("failures", failures);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("options", options.commandLine());
        run.put("redis", redis.values().stream().map(RedisDeployment::describe).toList());
        run.put("zookeeper", "3 servers in the harness JVM (Curator TestingCluster), session timeout "
                + Workload.SESSION_TIMEOUT_MS + " ms");
        run.put("topics", clients.topics().stream().map(t -> t.name() + " " + t.type() + " slots " + t.slotAmount()).toList());
        run.put("lease_ms", Workload.LEASE.toMillis());
        run.put("max_retries", Workload.MAX_RETRIES);
        run.put("started", Instant.ofEpochMilli(runStart / 1000).toString());
        run.put("ended", Instant.ofEpochMilli(runEnd / 1000).toString());
        run.put("seconds", (runEnd - runStart) / 1_000_000);
        run.put("consumer_incarnations", lives.size());
        run.put("probes_sent", probes.sentCount());
        run.put("slow_messages_sent_for_kills_and_pauses", baits);
        details.put("run", run);
        details.put("drain", drain);
        details.putAll(result.details());
        List<Map<String, Object>> faultLog = new ArrayList<>();
        for (FaultRecord fault : faults.stream().sorted(Comparator.comparingInt(FaultRecord::id)).toList()) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("id", fault.id());
            f.put("kind", fault.kind().cliName());
            f.put("target", fault.target());
            f.put("at_s", (fault.injectMicros() - runStart) / 1_000_000.0);
            f.put("undone_after_ms", (fault.healMicros() - fault.injectMicros()) / 1000);
            f.put("recovery_ms", fault.recoveryMicros() < 0 ? null : fault.recoveryMicros() / 1000);
            f.put("detail", fault.detail());
            faultLog.add(f);
        }
        details.put("fault_log", faultLog);
        details.put("unrecovered_faults", unrecovered);

        Path out = options.out().toAbsolutePath();
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("redis", options.redis().cliName());
        figures.put("seconds", (runEnd - runStart) / 1_000_000);
        figures.putAll(result.figures());
        figures.put("verdict", failures.isEmpty() ? "PASS" : "FAIL");
        figures.put("failures", failures);
        String json = Json.write(figures);
        Files.writeString(out, json, StandardCharsets.UTF_8);
        String name = out.getFileName().toString();
        String stem = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        Path detailsFile = out.resolveSibling(stem + ".details.json");
        Files.writeString(detailsFile, Json.write(details), StandardCharsets.UTF_8);

        System.out.print(json);
        System.out.println("details: " + detailsFile);
        System.out.println("messages by deployment " + details.get("messages_by_deployment") + ", superseded "
                + details.get("superseded") + ", dead without reason " + details.get("dead_without_reason"));
        if (failures.isEmpty()) {
            System.out.println("PASS: every invariant held");
        } else {
            System.out.println("FAIL:");
            failures.forEach(f -> System.out.println("  - " + f));
        }
        System.out.flush();
        return new Outcome(figures, details, failures, out, dir);
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    private void say(String line) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf("[%7.1fs] %s%n", seconds, line);
        System.out.flush();
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
