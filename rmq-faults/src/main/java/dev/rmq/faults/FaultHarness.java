package dev.rmq.faults;

import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.faults.check.InvariantChecker;
import dev.rmq.faults.check.Verdict;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.testsupport.db.PostgresTestServer;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The fault harness: starts ZooKeeper (3 servers, in this JVM: Curator's TestingCluster), Redis (standalone,
 * Cluster or both), N consumer JVMs ({@link ConsumerFleet}) and a producer JVM on loopback, injects faults at
 * random times for the requested duration ({@link FaultInjector}), stops the producer, lets the consumers drain
 * what is left ({@link EndOfRun}), and hands the run's events to the {@link InvariantChecker}. Every process
 * writes what it does to its own {@code .events} file; the checker decides from those alone. The harness prints
 * the result and writes it as JSON ({@link RunReport}); it exits with 0 when every invariant held, 1 when one
 * broke, 2 when the harness itself failed. Run it with {@code rmq-faults/faults}; see {@link HarnessOptions#USAGE}.
 */
public final class FaultHarness {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final String CHILD_HEAP = "256m";
    /** A run at least this long fails when none of its kills hit a consumer in the middle of a message. */
    static final Duration LONG_RUN = Duration.ofMinutes(5);

    private final HarnessOptions options;
    private final Path dir;
    private final Random random;
    private final long startNanos = System.nanoTime();
    private final List<String> harnessErrors = new ArrayList<>();
    private final List<HarnessEvent.FaultInjected> faults = new ArrayList<>();
    private final Map<Deployment, RedisDeployment> redis = new EnumMap<>(Deployment.class);
    /** The clients and the probes, null until the run has connected them; closed at its end. */
    private @Nullable HarnessClients clients;
    private @Nullable Probes probes;
    /** The journal's database, when the run injects redis-flush; null otherwise. */
    private @Nullable PostgresTestServer journalDatabase;
    /** The harness's own journal, which restores after a flush; null without one. */
    private @Nullable HarnessJournal restoreJournal;

    /** The outcome of a run: the figures (the JSON result), the details, and what failed. */
    record Outcome(Map<String, Object> figures, Map<String, Object> details, List<String> failures, Path out,
                   Path workDir) {

        boolean passed() {
            return failures.isEmpty();
        }
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
            Path dir = Files.createDirectories(options.workDir());
            // a run directory holds one run's events: the checker reads every file of it
            try (Stream<Path> old = Files.list(dir)) {
                for (Path file : old.filter(f -> f.getFileName().toString().endsWith(".events")).toList()) {
                    Files.delete(file);
                }
            }
            return dir;
        }
        return Files.createTempDirectory("rmq-faults-");
    }

    private Outcome execute() throws Exception {
        say("fault harness: " + options.commandLine());
        say("logs in " + dir);
        Outcome outcome;
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(); ConsumerTail t = new ConsumerTail();
             EventLog log = new EventLog(dir.resolve("harness.events"))) {
            say("ZooKeeper ensemble of 3 servers in this JVM (Curator TestingCluster) at " + zk.connectString());
            try {
                for (Deployment deployment : options.redis().deployments()) {
                    RedisDeployment r = RedisDeployment.start(deployment);
                    redis.put(deployment, r);
                    say(r.describe());
                }
                clients = HarnessClients.connect(redisAddresses(), 1);
                HostClock.verify(clients);
                if (options.faults().contains(FaultKind.REDIS_FLUSH) && redis.containsKey(Deployment.STANDALONE)) {
                    journalDatabase = PostgresTestServer.start();
                    restoreJournal = HarnessJournal.open(journalDatabase.jdbcUrl(), JournalMode.OFF);
                    say("the standalone topics are journaled in PostgreSQL on port " + journalDatabase.port()
                            + ", for redis-flush");
                }
                outcome = drive(zk, t, log, clients);
            } finally {
                ChildJvm.killAll();
                if (restoreJournal != null) {
                    restoreJournal.close();
                }
                if (journalDatabase != null) {
                    journalDatabase.close();
                }
                if (probes != null) {
                    probes.close();
                }
                if (clients != null) {
                    clients.close();
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

    private Outcome drive(ZooKeeperEnsemble zookeeper, ConsumerTail tail, EventLog events, HarnessClients clients)
            throws Exception {
        long runStart = EventLog.nowMicros();
        events.write(new HarnessEvent.RunStarted(runStart, Workload.SESSION_TIMEOUT_MS, Workload.LEASE.toMillis(),
                clients.topics().stream().map(t -> new HarnessEvent.Topic(t.name(), t.type().name(),
                        Workload.deploymentOf(t.name()).cliName(), t.delivery().name(), t.ttl().toMillis())).toList()));
        probes = new Probes(clients, tail);
        ConsumerFleet fleet = new ConsumerFleet(dir, options, zookeeper.connectString(), this::redisAddresses, journalUrl(),
                tail, events);
        fleet.start();
        awaitAllSlotsOwned(zookeeper, clients);
        say(options.consumers() + " consumers own every slot of " + clients.topics().size() + " topics");

        ChildJvm producer = startProducer();
        MidMessage midMessage = new MidMessage(fleet, clients, events, random);
        FaultInjector injector = new FaultInjector(fleet, clients, redis, zookeeper, probes, midMessage, events, random,
                restoreJournal == null ? null : restoreJournal.journal());
        injectUntil(injector, System.nanoTime() + options.duration().toNanos());

        say("stopping the producer");
        producer.send("STOP");
        String stopped = producer.await("STOPPED", Duration.ofSeconds(120));
        producer.exit("EXIT", Duration.ofSeconds(10));
        if (stopped == null) {
            harnessErrors.add("the producer did not stop within 120 s");
        }
        Map<String, Object> producerReport = ProducerMain.report(stopped);
        if (!producerReport.isEmpty()) {
            say("producer: " + producerReport.get("bursts_planned") + " bursts planned, "
                    + producerReport.get("bursts_skipped") + " skipped, " + producerReport.get("waited_for_room_ms")
                    + " ms waited for room among the calls under way " + producerReport.get("by_deployment"));
        }
        Map<String, Object> drain = EndOfRun.drain(clients);
        say("drain: " + drain.get("drained") + ", " + drain.get("waiting_left") + " waiting and " + drain.get("in_flight_left")
                + " in flight left after " + drain.get("seconds") + " s");
        if (!Boolean.TRUE.equals(drain.get("drained"))) {
            harnessErrors.add("the queues did not drain within " + drain.get("timeout_seconds") + " s: "
                    + drain.get("waiting_left") + " waiting, " + drain.get("in_flight_left") + " in flight");
        }
        drain.put("coordination_at_end", fleet.coordination(clients));
        fleet.exitAll(this::say);
        EndOfRun.recordDeadQueue(clients, events);
        long runEnd = EventLog.nowMicros();
        events.write(new HarnessEvent.RunEnded(runEnd));

        Verdict verdict;
        if (journalDatabase == null) {
            verdict = InvariantChecker.check(dir);
        } else {
            try (JournalRows journal = new JournalRows(journalDatabase.jdbcUrl())) {
                verdict = InvariantChecker.check(dir, journal);
            }
        }
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
        run.put("consumer_incarnations", fleet.incarnations());
        run.put("producer", producerReport);
        run.put("probes_sent", probes.sentCount());
        run.put("slow_messages_sent_for_kills_and_pauses", midMessage.baits());
        run.put("outage_log_lines", outageLogLines(fleet));
        run.put("longest_slot_gap_ms", faults.stream().mapToLong(HarnessEvent.FaultInjected::recoveryMicros).max()
                .orElse(0) / 1000);
        RunReport report = RunReport.of(options, verdict, run, drain, harnessErrors, faults, injector.unrecovered(),
                runStart);
        if (!report.failures().isEmpty() && journalDatabase != null) {
            try {
                JournalDump.write(journalDatabase.jdbcUrl(), dir);
                say("the journal's rows, without payloads, are in journal-messages.tsv and journal-transitions.tsv");
            } catch (SQLException | IOException e) {
                say("the journal's rows could not be written beside the logs: " + e);
            }
        }
        report.write(options.out());
        return new Outcome(report.figures(), report.details(), report.failures(), options.out().toAbsolutePath(), dir);
    }

    /**
     * What the consumers told their operators about the outages they met: one line per outage and container is
     * the promise, not one per poll.
     */
    private static Map<String, Long> outageLogLines(ConsumerFleet fleet) throws IOException {
        Map<String, Long> lines = new LinkedHashMap<>();
        lines.put("redis_unreachable_warn", fleet.logLines("Redis has not answered for"));
        lines.put("redis_back_info", fleet.logLines("Redis answers again"));
        lines.put("zookeeper_suspended_warn", fleet.logLines("ZooKeeper connection SUSPENDED"));
        lines.put("zookeeper_lost_warn", fleet.logLines("ZooKeeper session LOST"));
        lines.put("zookeeper_reconnected_info", fleet.logLines("ZooKeeper connection RECONNECTED"));
        return lines;
    }

    private ChildJvm startProducer() throws InterruptedException {
        Path producerLog = dir.resolve("producer.events");
        List<String> args = new ArrayList<>(List.of("--log", producerLog.toString(), "--seed",
                Long.toString(options.seed()), "--rate", Double.toString(options.burstsPerSecond()), "--durable",
                options.durable()));
        args.addAll(List.of("--" + HarnessJournal.ARG, journalUrl()));
        args.addAll(ChildArgs.redisArgs(redisAddresses()));
        ChildJvm producer = ChildJvm.start("producer", ProducerMain.class, args, dir.resolve("producer.log"), CHILD_HEAP);
        if (producer.await("READY", START_TIMEOUT) == null) {
            throw new IllegalStateException("the producer did not start; see " + dir.resolve("producer.log"));
        }
        say("producer started (" + options.burstsPerSecond() + " keys/s, durable sends: " + options.durable() + ")");
        return producer;
    }

    /** The journal's JDBC URL for the children, or {@code -} when the run has none. */
    private String journalUrl() {
        return journalDatabase == null ? "-" : journalDatabase.jdbcUrl();
    }

    private Map<Deployment, List<String>> redisAddresses() {
        Map<Deployment, List<String>> addresses = new EnumMap<>(Deployment.class);
        redis.forEach((deployment, r) -> addresses.put(deployment, r.addresses()));
        return addresses;
    }

    private void awaitAllSlotsOwned(ZooKeeperEnsemble zookeeper, HarnessClients clients) throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper.connectString(), 10_000, 5_000,
                new ExponentialBackoffRetry(100, 5))) {
            curator.start();
            Map<Deployment, RmqCoordinator> observers = new EnumMap<>(Deployment.class);
            try {
                for (Deployment deployment : clients.deployments()) {
                    RmqCoordinator observer = RmqCoordinator.builder(curator, clients.rmq(deployment))
                            .instanceId("harness-observer").origin("fault harness").build();
                    observer.start();
                    observers.put(deployment, observer);
                }
                long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
                while (true) {
                    boolean all = true;
                    for (Map.Entry<Deployment, RmqCoordinator> observer : observers.entrySet()) {
                        for (TopicDefinition topic : Workload.topics(observer.getKey())) {
                            all &= observer.getValue().owners(topic.name()).size() == topic.slotAmount();
                        }
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

    /** Injects the requested kinds in shuffled cycles, at random gaps, until the deadline. */
    private void injectUntil(FaultInjector injector, long deadlineNanos) throws Exception {
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
                HarnessEvent.FaultInjected fault = injector.inject(id, kind);
                faults.add(fault);
                say(String.format("fault %d %s on %s: %s; %s", id, kind.cliName(), fault.target(), fault.detail(),
                        fault.recoveryMicros() < 0 ? "NOT RECOVERED within the probe timeout"
                                : "every slot consumed again after " + fault.recoveryMicros() / 1000 + " ms"));
            } catch (IllegalStateException e) {
                harnessErrors.add("fault " + id + " " + kind.cliName() + ": " + e.getMessage());
                say("fault " + id + " " + kind.cliName() + " could not be injected or undone: " + e.getMessage());
            }
        }
    }

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
