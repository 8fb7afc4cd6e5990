package dev.rmq.faults;

import dev.rmq.faults.RedisClients.RedisMode;
import org.jspecify.annotations.Nullable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The harness's command-line options; see {@link #USAGE}.
 *
 * @param duration        how long faults are injected (the drain and the check come after)
 * @param redis           standalone (AOF, appendfsync always), cluster (3 masters, 3 replicas) or both
 * @param consumers       consumer JVMs, at least 3
 * @param threads         worker threads per topic in each consumer
 * @param faults          the faults to inject
 * @param errorRate       the fraction of deliveries whose handler throws (0 without listener-errors)
 * @param durable         none, mix (half of the Cluster bursts through a durable producer) or all (every Cluster
 *                        burst)
 * @param burstsPerSecond the producer's rate of new keys
 * @param gapMin          the shortest wait before each fault
 * @param gapMax          the longest wait before each fault
 * @param seed            the seed of every random choice of the harness and the producer
 * @param out             where the JSON result goes
 * @param workDir         where the processes' logs go; null for a fresh temporary directory
 * @param keepLogs        keep the logs even when the run passes (a failed run always keeps them)
 * @param listeners       the consumers' handler shape: single, batch, async, or mixed (each consumer's topics
 *                        take the three in turn, so a slot changes shape when it changes owner)
 */
record HarnessOptions(Duration duration, RedisMode redis, int consumers, int threads, Set<FaultKind> faults,
                      double errorRate, String durable, double burstsPerSecond, Duration gapMin, Duration gapMax,
                      long seed, Path out, @Nullable Path workDir, boolean keepLogs, String listeners) {

    /** The handler shapes a consumer can take. */
    static final List<String> LISTENER_SHAPES = List.of("single", "batch", "async", "mixed");

    static final String USAGE = """
            usage: rmq-faults/faults [options]
              --minutes M | --seconds S   how long faults are injected (default 5 minutes); a drain and the check follow
              --redis standalone|cluster|sentinel|both|all
                                          standalone: one redis-server with AOF and appendfsync always; cluster: a
                                          3-master/3-replica Cluster; sentinel: a master and a replica under three
                                          Sentinels; both: standalone and cluster; all (default): the three side by
                                          side, each with its own topics, so every fault applies
              --consumers N               consumer JVMs, at least 3 (default 3)
              --threads T                 worker threads per topic in each consumer (default 2)
              --listeners single|batch|async|mixed
                                          the consumers' handlers: one message at a time, a poll's messages together
                                          (naming the one that failed), or a result that completes on another thread;
                                          mixed (default): each consumer gives its topics the three in turn
              --faults a,b,...            faults to inject (default: all that apply to the Redis mode):
                                          kill, stop, redis-restart (standalone), redis-flush (standalone: FLUSHALL, then a
                                          restore from a PostgreSQL journal), failover (cluster), master-kill (cluster),
                                          sentinel-failover (sentinel),
                                          zk-expire, zk-quorum, zk-partition, net-latency, net-stall, net-stall-past-lease,
                                          net-reset, net-refuse (the net- kinds: standalone), listener-errors
              --error-rate R              fraction of deliveries whose handler throws, with listener-errors (default 0.1)
              --durable [none|mix|all]    durable sends (WAIT for 1 replica) of the Cluster and Sentinel topics: mix
                                          sends half of their bursts through a durable producer and counts the loss of each
                                          half apart; standalone Redis has no replica, so its sends are never durable
                                          (default: mix with a replicated deployment, else none; --durable alone means all)
              --rate B                    new keys (bursts) per second from the producer, up to 2000; a burst is about
                                          2.9 sends (default 15)
              --gap MIN,MAX               seconds to wait before each fault, drawn uniformly (default 2,6); the first
                                          round of faults always completes, so a short run still injects each kind once
              --seed N                    random seed (default: random, printed)
              --out FILE                  the JSON result (default faults-result.json); details go to FILE's stem
                                          + .details.json
              --work-dir DIR              where the processes' logs go (default: a new temporary directory)
              --keep-logs                 keep the logs when the run passes too (a failing run always keeps them)
            """;

    static HarnessOptions parse(String... args) {
        Duration duration = Duration.ofMinutes(5);
        RedisMode redis = RedisMode.ALL;
        int consumers = 3;
        int threads = 2;
        Set<FaultKind> faults = null;
        Double errorRate = null;
        String durable = null;
        double rate = 15;
        double gapMin = 2;
        double gapMax = 6;
        long seed = new java.util.Random().nextLong() & 0xFFFF_FFFFL;
        Path out = Path.of("faults-result.json");
        Path workDir = null;
        boolean keepLogs = false;
        String listeners = "mixed";
        List<String> list = new ArrayList<>(List.of(args));
        for (int i = 0; i < list.size(); i++) {
            String option = list.get(i);
            String next = i + 1 < list.size() ? list.get(i + 1) : null;
            switch (option) {
                case "--minutes" -> duration = Duration.ofMillis((long) (Double.parseDouble(value(option, next)) * 60_000));
                case "--seconds" -> duration = Duration.ofMillis((long) (Double.parseDouble(value(option, next)) * 1000));
                case "--redis" -> redis = RedisMode.parse(value(option, next));
                case "--consumers" -> consumers = Integer.parseInt(value(option, next));
                case "--threads" -> threads = Integer.parseInt(value(option, next));
                case "--listeners" -> listeners = value(option, next);
                case "--faults" -> {
                    faults = EnumSet.noneOf(FaultKind.class);
                    for (String name : value(option, next).split(",")) {
                        if (!name.isBlank()) {
                            faults.add(FaultKind.parse(name.trim()));
                        }
                    }
                }
                case "--error-rate" -> errorRate = Double.parseDouble(value(option, next));
                case "--durable" -> {
                    if (next == null || next.startsWith("--")) {
                        durable = "all";
                        continue;
                    }
                    durable = next;
                }
                case "--rate" -> rate = Double.parseDouble(value(option, next));
                case "--gap" -> {
                    String[] bounds = value(option, next).split(",");
                    if (bounds.length != 2) {
                        throw new IllegalArgumentException("--gap takes MIN,MAX in seconds, was " + next);
                    }
                    gapMin = Double.parseDouble(bounds[0]);
                    gapMax = Double.parseDouble(bounds[1]);
                }
                case "--seed" -> seed = Long.parseLong(value(option, next));
                case "--out" -> out = Path.of(value(option, next));
                case "--work-dir" -> workDir = Path.of(value(option, next));
                case "--keep-logs" -> {
                    keepLogs = true;
                    continue;
                }
                case "--help", "-h" -> throw new IllegalArgumentException("");
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
            i++;
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("the duration must be positive, was " + duration);
        }
        if (consumers < 3) {
            throw new IllegalArgumentException("--consumers must be at least 3, was " + consumers);
        }
        if (threads < 1 || threads > 16) {
            throw new IllegalArgumentException("--threads must be in 1..16, was " + threads);
        }
        if (!LISTENER_SHAPES.contains(listeners)) {
            throw new IllegalArgumentException("--listeners must be one of " + String.join(", ", LISTENER_SHAPES)
                    + ", was " + listeners);
        }
        if (faults == null) {
            faults = FaultKind.defaultsFor(redis);
        }
        for (FaultKind kind : faults) {
            if (!kind.appliesTo(redis)) {
                throw new IllegalArgumentException("fault " + kind.cliName() + " does not apply to --redis " + redis.cliName());
            }
        }
        double rateOfErrors = faults.contains(FaultKind.LISTENER_ERRORS) ? (errorRate == null ? 0.1 : errorRate) : 0;
        if (rateOfErrors < 0 || rateOfErrors >= 1) {
            throw new IllegalArgumentException("--error-rate must be in [0, 1), was " + rateOfErrors);
        }
        if (durable == null) {
            durable = redis.deployments().stream().anyMatch(Deployment::replicated) ? "mix" : "none";
        }
        if (!List.of("none", "mix", "all").contains(durable)) {
            throw new IllegalArgumentException("--durable must be none, mix or all, was " + durable);
        }
        if (!durable.equals("none") && redis.deployments().stream().noneMatch(Deployment::replicated)) {
            throw new IllegalArgumentException("--durable " + durable + " needs replicas: use --redis cluster, sentinel,"
                    + " both or all"
                    + " (standalone Redis has none, so every durable send would fail with NotReplicatedException)");
        }
        if (rate <= 0 || rate > 2000) {
            throw new IllegalArgumentException("--rate must be in (0, 2000], was " + rate);
        }
        if (gapMin < 0 || gapMax < gapMin || gapMax > 600) {
            throw new IllegalArgumentException("--gap needs 0 <= MIN <= MAX <= 600 seconds, was " + gapMin + "," + gapMax);
        }
        return new HarnessOptions(duration, redis, consumers, threads, Collections.unmodifiableSet(faults), rateOfErrors,
                durable, rate, Duration.ofMillis((long) (gapMin * 1000)), Duration.ofMillis((long) (gapMax * 1000)), seed,
                out, workDir, keepLogs, listeners);
    }

    private static String value(String option, @Nullable String next) {
        if (next == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return next;
    }

    List<FaultKind> discreteFaults() {
        return faults.stream().filter(FaultKind::isDiscrete).sorted().toList();
    }

    /** The same run as a command line, for the run's description. */
    String commandLine() {
        return "--seconds " + duration.toSeconds() + " --redis " + redis.cliName() + " --consumers " + consumers
                + " --threads " + threads + " --listeners " + listeners + " --faults " + String.join(",", faults.stream().sorted().map(FaultKind::cliName).toList())
                + " --error-rate " + errorRate + " --durable " + durable + " --rate " + burstsPerSecond + " --gap "
                + gapMin.toMillis() / 1000.0 + "," + gapMax.toMillis() / 1000.0 + " --seed " + seed;
    }
}
