package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.testsupport.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

import static org.awaitility.Awaitility.await;

/**
 * Measures how long the slots take to be owned again and balanced after a worker joins, leaves
 * gracefully, or is killed with SIGKILL (4 s ZooKeeper session timeout). Prints median and range of
 * five runs each. Not part of the default run; run it with
 * {@code ./mvnw -pl rmq-core -am test -Dtest=RebalanceMeasurement -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RebalanceMeasurement {

    private static final int RUNS = 5;

    @Test
    void reportsRebalanceTimes() throws Exception {
        try (RedisServer redis = RedisTestServers.newStandalone(); TestingServer zookeeper = new TestingServer(true)) {
            RedissonClient redisson = Fixtures.redisson(redis);
            CuratorFramework curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
            curator.start();
            RmqCoordinator observer = RmqCoordinator.builder(curator,
                    RmqClient.builder(redisson).topic(WorkerProcess.TOPIC).build().context()).instanceId("observer").build();
            observer.start();
            try (ZooKeeperNode a = node("a", redis, zookeeper); ZooKeeperNode b = node("b", redis, zookeeper)) {
                awaitOwners(observer, workers -> workers == 2);
                List<Long> join = new ArrayList<>();
                List<Long> leave = new ArrayList<>();
                List<Long> kill = new ArrayList<>();
                for (int run = 0; run < RUNS; run++) {
                    ZooKeeperNode c = node("c" + run, redis, zookeeper);
                    long start = System.nanoTime();
                    c.start();
                    awaitOwners(observer, workers -> workers == 3);
                    join.add(System.nanoTime() - start);
                    start = System.nanoTime();
                    c.close();
                    awaitOwners(observer, workers -> workers == 2);
                    leave.add(System.nanoTime() - start);

                    Process process = launch(redis, zookeeper, "k" + run);
                    try {
                        awaitOwners(observer, workers -> workers == 3);
                        start = System.nanoTime();
                        process.destroyForcibly().waitFor();
                        awaitOwners(observer, workers -> workers == 2);
                        kill.add(System.nanoTime() - start);
                    } finally {
                        process.destroyForcibly().waitFor();
                    }
                }
                print("join", join);
                print("graceful leave", leave);
                print("SIGKILL (4 s session)", kill);
            } finally {
                observer.close();
                curator.close();
                redisson.shutdown();
            }
        }
    }

    private static ZooKeeperNode node(String name, RedisServer redis, TestingServer zookeeper) {
        ZooKeeperNode node = new ZooKeeperNode(name, redis.address(), zookeeper.getConnectString(), WorkerProcess.TOPIC, 1,
                m -> ConsumeResult.success());
        return name.startsWith("c") ? node : node.start();
    }

    private static Process launch(RedisServer redis, TestingServer zookeeper, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(),
                redis.address(), zookeeper.getConnectString(), name).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Waits until all 4 slots are owned as planned by {@code workers} distinct workers, each holding 1 or 2. */
    private static void awaitOwners(RmqCoordinator observer, Predicate<Integer> workers) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Map<Integer, String> owners = observer.owners("procs");
            if (owners.size() != 4 || !owners.equals(observer.plan("procs"))) {
                return false;
            }
            Map<String, Integer> counts = new HashMap<>();
            owners.values().forEach(w -> counts.merge(w, 1, Integer::sum));
            int floor = 4 / counts.size();
            return workers.test(counts.size()) && counts.values().stream().allMatch(c -> c == floor || c == floor + 1);
        });
    }

    private static void print(String what, List<Long> nanos) {
        List<Long> ms = new ArrayList<>(nanos.stream().map(n -> n / 1_000_000).toList());
        Collections.sort(ms);
        System.out.printf(Locale.ROOT, "rebalance after %-22s median %5d ms, range %d..%d ms, runs %s%n", what,
                ms.get(ms.size() / 2), ms.get(0), ms.get(ms.size() - 1), nanos.stream().map(n -> n / 1_000_000).toList());
    }
}
