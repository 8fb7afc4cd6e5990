package dev.rmq.faults;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short variant of the fault harness, run by the default build: one round of every fault kind against real
 * processes (a producer JVM, three consumer JVMs, standalone Redis with AOF and a 3+3 Cluster side by side, three
 * ZooKeeper servers), with a second or less between faults, then the full invariant check. About two minutes;
 * the long runs are for {@code rmq-faults/faults}.
 *
 * <p>It asserts outcomes only, never timings: a busy machine makes recoveries slower, not wrong.
 */
class FaultHarnessTests {

    @Test
    void underEveryFaultKindInOneRunNothingIsLostNoDuplicateIsUnexplainedAndNoSlotHasTwoWorkers() throws Exception {
        Path target = Path.of("target", "fault-harness-test");
        HarnessOptions options = HarnessOptions.parse("--seconds", "1", "--gap", "0.3,1", "--redis", "both",
                "--consumers", "3", "--error-rate", "0.1", "--seed", "20251121",
                "--out", target.resolve("result.json").toString(), "--work-dir", target.resolve("logs").toString());

        FaultHarness.Outcome outcome = FaultHarness.run(options);

        Map<String, Object> figures = outcome.figures();
        assertThat(outcome.failures()).as("invariant failures; logs in %s", outcome.workDir()).isEmpty();
        assertThat(figures.get("verdict")).isEqualTo("PASS");
        assertThat(figures.get("lost_durable")).isEqualTo(0L);
        assertThat(figures.get("lost_unexplained")).isEqualTo(0L);
        assertThat(figures.get("early")).isEqualTo(0L);
        assertThat(figures.get("overlap_violations")).isEqualTo(0L);
        assertThat(figures.get("duplicates_unexplained")).isEqualTo(0L);
        assertThat(figures.get("paused_handler_overlaps_redelivered")).isEqualTo(figures.get("paused_handler_overlaps"));
        assertThat((Long) figures.get("sent")).isPositive();
        assertThat((Long) figures.get("merged")).isPositive();
        assertThat((Long) figures.get("consumed_unique")).isPositive();
        assertThat((Long) figures.get("kills_mid_message")).as("the kill struck a handler at work").isPositive();
        @SuppressWarnings("unchecked")
        Map<String, Long> faults = (Map<String, Long>) figures.get("faults");
        assertThat(faults).as("every fault kind was really injected")
                .containsOnlyKeys("kill", "stop", "redis-restart", "redis-flush", "failover", "master-kill", "zk-expire",
                        "zk-quorum", "net-latency", "net-stall", "net-stall-past-lease", "net-reset", "net-refuse", "zk-partition",
                        "listener-errors");
        assertThat(faults.values()).allMatch(count -> count > 0);
        @SuppressWarnings("unchecked")
        Map<String, Long> outageLines = (Map<String, Long>) ((Map<String, Object>) outcome.details().get("run"))
                .get("outage_log_lines");
        assertThat(outageLines.get("zookeeper_suspended_warn")).as("the partition from ZooKeeper was logged").isPositive();
        @SuppressWarnings("unchecked")
        Map<String, Object> producer = (Map<String, Object>) ((Map<String, Object>) outcome.details().get("run"))
                .get("producer");
        assertThat(producer).as("how far the producer kept its rate").containsOnlyKeys("bursts_planned", "bursts_skipped",
                "waited_for_room_ms", "by_deployment");
        assertThat((Long) producer.get("bursts_planned")).isPositive();
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Long>> lanes = (Map<String, Map<String, Long>>) producer.get("by_deployment");
        assertThat(lanes).as("each deployment's calls, from its own window").containsOnlyKeys("standalone", "cluster");
        assertThat(lanes.values()).allSatisfy(lane -> assertThat(lane.get("calls")).isPositive());
        assertThat(outcome.out()).exists();
    }
}
