package dev.rmq.coordination;

import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisTestServers;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Workers in separate JVMs: one is killed with SIGKILL in the middle of a message. Its slots move to the
 * survivor, and the message it held is redelivered there, and only after its lease ran out.
 */
class SeparateProcessTests {

    private RedisServer redis;
    private TestingServer zookeeper;
    private RedissonClient redisson;
    private CuratorFramework curator;
    private RmqCoordinator observer;
    private final Map<String, Process> workers = new HashMap<>();
    private Path logDir;

    @BeforeEach
    void servers() throws Exception {
        redis = RedisTestServers.newStandalone();
        zookeeper = new TestingServer(true);
        redisson = Fixtures.redisson(redis);
        curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        curator.start();
        RmqClient rmq = RmqClient.builder(redisson).topic(WorkerProcess.TOPIC).build();
        observer = RmqCoordinator.builder(curator, rmq).instanceId("observer").build();
        observer.start();
        logDir = Files.createTempDirectory("rmq-workers");
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (Process process : workers.values()) {
            process.destroyForcibly().waitFor();
        }
        observer.close();
        curator.close();
        redisson.shutdown();
        zookeeper.close();
        redis.close();
        try (var files = Files.list(logDir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(logDir);
    }

    private void launch(String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                WorkerProcess.class.getName(), redis.address(), zookeeper.getConnectString(), name);
        File log = logDir.resolve(name + ".log").toFile();
        builder.redirectErrorStream(true).redirectOutput(log);
        workers.put(name, builder.start());
    }

    private List<String[]> log() {
        List<String[]> entries = new ArrayList<>();
        for (String line : redisson.getList("worker-log", StringCodec.INSTANCE).readAll().stream().map(String::valueOf).toList()) {
            entries.add(line.split("\\|"));
        }
        return entries;
    }

    private Optional<String[]> entry(String kind, String key, int attempt) {
        return log().stream().filter(e -> e[0].equals(kind) && e[3].equals(key) && e[4].equals(String.valueOf(attempt)))
                .findFirst();
    }

    @Test
    void aKilledWorkersMessageIsRedeliveredToTheNewOwnerOnlyAfterItsLease() throws Exception {
        launch("p1");
        launch("p2");
        await().atMost(Duration.ofSeconds(60)).until(() -> observer.owners("procs").values().stream().distinct().count() == 2
                && observer.owners("procs").size() == 4);

        RmqClient producer = RmqClient.builder(redisson).topic(WorkerProcess.TOPIC).build();
        producer.producer().send(OutgoingMessage.priority("procs", "x", 50).withKey("stall-1"));
        String[] firstStart = await().atMost(Duration.ofSeconds(20)).until(() -> entry("start", "stall-1", 1), Optional::isPresent).get();
        String victim = firstStart[1];
        String survivor = victim.equals("p1") ? "p2" : "p1";
        for (int i = 0; i < 40; i++) {
            producer.producer().send(OutgoingMessage.priority("procs", "x", 30).withKey("other-" + i));
        }

        workers.get(victim).destroyForcibly().waitFor();
        long killedAt = WorkerProcess.redisMicros(redisson);

        String[] redelivery = await().atMost(Duration.ofSeconds(60)).until(() -> entry("start", "stall-1", 2), Optional::isPresent).get();
        assertThat(redelivery[1]).isEqualTo(survivor);
        long victimLeaseDeadline = Long.parseLong(firstStart[6]);
        long redeliveredAt = Long.parseLong(redelivery[5]);
        assertThat(redeliveredAt).as("redelivered only after the killed worker's lease").isGreaterThanOrEqualTo(victimLeaseDeadline);
        await().atMost(Duration.ofSeconds(30)).until(() -> entry("end", "stall-1", 2).isPresent());
        for (int i = 0; i < 40; i++) {
            String key = "other-" + i;
            await().atMost(Duration.ofSeconds(30)).until(() -> log().stream().anyMatch(e -> e[0].equals("end") && e[3].equals(key)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> observer.owners("procs").size() == 4
                && observer.owners("procs").values().stream().allMatch(w -> w.startsWith(survivor + "-")));
        assertThat(overlaps(victim, killedAt)).isEmpty();
    }

    /** Handler runs of one slot by both processes that overlap; the victim's unfinished run ends when it was killed. */
    private List<String> overlaps(String victim, long killedAt) {
        OverlapLog runs = new OverlapLog();
        Map<String, String[]> open = new HashMap<>();
        for (String[] e : log()) {
            String run = e[1] + "|" + e[3] + "|" + e[4];
            if (e[0].equals("start")) {
                open.put(run, e);
            } else {
                String[] start = open.remove(run);
                runs.add(Integer.parseInt(e[2]), e[1], Long.parseLong(start[5]), Long.parseLong(e[5]));
            }
        }
        open.values().forEach(start -> runs.add(Integer.parseInt(start[2]), start[1], Long.parseLong(start[5]),
                start[1].equals(victim) ? killedAt : Long.MAX_VALUE));
        return runs.overlaps();
    }
}
