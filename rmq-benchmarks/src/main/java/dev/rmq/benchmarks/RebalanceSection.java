package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.redisson.api.RedissonClient;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

import static dev.rmq.benchmarks.Report.Unit.MILLIS;

/**
 * The rebalance section: how long the 4 slots of a topic take to be owned again, balanced, after a worker joins,
 * leaves gracefully, or is SIGKILLed (its 4 s ZooKeeper session must expire first). Two workers stay up in this
 * JVM; the third joins in this JVM, or runs in a JVM of its own for the kill. ZooKeeper is one in-process
 * server (Curator's TestingServer).
 */
final class RebalanceSection {

    private static final long AWAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Context context;
    private final RmqCases rmq;

    RebalanceSection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    void run() {
        String section = "Rebalance: slots owned and balanced again (4 slots, " + RebalanceNode.SESSION_TIMEOUT_MS / 1000
                + " s ZooKeeper session)";
        String redis = context.probe().server().address();
        Samples samples = context.samples();
        try (TestingServer zookeeper = new TestingServer(true);
             CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
            curator.start();
            RedissonClient redisson = rmq.redisson();
            RmqCoordinator observer = RmqCoordinator.builder(curator, RmqClient.builder(redisson)
                    .topic(RebalanceNode.TOPIC).build()).instanceId("observer").build();
            observer.start();
            try (RebalanceNode a = new RebalanceNode("a", redis, zookeeper.getConnectString()).start();
                 RebalanceNode b = new RebalanceNode("b", redis, zookeeper.getConnectString()).start()) {
                awaitOwners(observer, workers -> workers == 2);
                for (int rep = 1; rep <= context.reps(); rep++) {
                    Log.info("rebalance repetition %d of %d", rep, context.reps());
                    RebalanceNode c = new RebalanceNode("c" + rep, redis, zookeeper.getConnectString());
                    long start = System.nanoTime();
                    c.start();
                    awaitOwners(observer, workers -> workers == 3);
                    samples.add("rebalance.join", millisSince(start));
                    start = System.nanoTime();
                    c.close();
                    awaitOwners(observer, workers -> workers == 2);
                    samples.add("rebalance.leave", millisSince(start));
                    samples.add("rebalance.kill", killed(observer, redis, zookeeper.getConnectString(), "k" + rep));
                }
            } finally {
                observer.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException("the rebalance section failed: " + e, e);
        }
        Report report = context.report();
        report.figure("rebalance.join_ms", samples.figure("rebalance.join"), MILLIS, section, "a worker joins", "");
        report.figure("rebalance.leave_ms", samples.figure("rebalance.leave"), MILLIS, section, "a worker leaves gracefully",
                "");
        report.figure("rebalance.kill_ms", samples.figure("rebalance.kill"), MILLIS, section, "a worker is SIGKILLed",
                "the session timeout plus the time to notice it");
    }

    /** Starts a worker in a JVM of its own, waits until it holds its share, SIGKILLs it: ms until rebalanced. */
    private double killed(RmqCoordinator observer, String redis, String zookeeper, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RebalanceNode.class.getName(), redis, zookeeper, name).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            awaitOwners(observer, workers -> workers == 3);
            long start = System.nanoTime();
            process.destroyForcibly().waitFor();
            awaitOwners(observer, workers -> workers == 2);
            return millisSince(start);
        } finally {
            process.destroyForcibly().waitFor();
        }
    }

    /** Waits until all 4 slots are owned as planned by {@code workers} distinct workers, each holding 1 or 2. */
    private static void awaitOwners(RmqCoordinator observer, IntPredicate workers) throws InterruptedException {
        String topic = RebalanceNode.TOPIC.name();
        long deadline = System.nanoTime() + AWAIT_NANOS;
        while (true) {
            Map<Integer, String> owners = observer.owners(topic);
            if (owners.size() == 4 && owners.equals(observer.plan(topic))) {
                Map<String, Integer> counts = new HashMap<>();
                owners.values().forEach(w -> counts.merge(w, 1, Integer::sum));
                int floor = 4 / counts.size();
                if (workers.test(counts.size()) && counts.values().stream().allMatch(c -> c == floor || c == floor + 1)) {
                    return;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the slots were not rebalanced within 60 s: owners " + owners);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }
}
