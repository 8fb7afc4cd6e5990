package dev.rmq.faults;

import dev.rmq.faults.InvariantChecker.DeadEntry;
import dev.rmq.faults.InvariantChecker.Incarnation;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on hand-written logs: each invariant it guards is broken once on purpose, so that a harness
 * run that passes means something, and each allowance is shown to hold only for what it names.
 */
class InvariantCheckerTests {

    private static final String MERGE = Workload.topic(Deployment.STANDALONE, TopicType.RANGE_MERGE).name();
    private static final String PRIORITY = Workload.topic(Deployment.STANDALONE, TopicType.PRIORITY).name();
    private static final String FIXED = Workload.topic(Deployment.STANDALONE, TopicType.FIXED_TIME).name();
    private static final String CLUSTER_PRIORITY = Workload.topic(Deployment.CLUSTER, TopicType.PRIORITY).name();
    private static final long T0 = 1_800_000_000_000_000L;
    private static final long S = 1_000_000;
    private static final long MS = 1_000;
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    @TempDir
    Path dir;

    private final List<String> producer = new ArrayList<>();
    private final Map<String, List<String>> consumers = new LinkedHashMap<>();
    private final Map<String, List<String>> stderr = new LinkedHashMap<>();
    private final Map<String, Incarnation> incarnations = new LinkedHashMap<>();
    private final List<FaultRecord> faults = new ArrayList<>();
    private final List<DeadEntry> dead = new ArrayList<>();

    private void sent(long seq, String topic, String key, boolean merged, long at, long value) {
        sent(seq, topic, key, 0, merged, false, at, value);
    }

    private void sent(long seq, String topic, String key, int slot, boolean merged, boolean durable, long at, long value) {
        producer.add(String.join(" ", "S", Long.toString(seq), topic, key, Integer.toString(slot), merged ? "1" : "0",
                durable ? "1" : "0", Long.toString(at), Long.toString(at + 500), Long.toString(value), "-"));
    }

    private void failedSend(long seq, String topic, String key, long at, long value) {
        producer.add(String.join(" ", "F", Long.toString(seq), topic, key, "-1", "-1", "0", Long.toString(at),
                Long.toString(at + 500), Long.toString(value), "RmqUnavailableException:down"));
    }

    /** A handler run whose lease ran until 3 s after its start. */
    private void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
                     long end, String outcome, long redisNowMs, long dueMs, long fixedMs) {
        ran(inc, worker, topic, slot, key, seq, attempt, start, end, outcome, redisNowMs, dueMs, fixedMs,
                start / 1000 + 3000);
    }

    /** A handler run of {@code worker} in incarnation {@code inc}; end -1 leaves it without an E line. */
    private void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
                     long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs) {
        List<String> log = consumers.computeIfAbsent(inc, k -> new ArrayList<>());
        incarnations.putIfAbsent(inc, new Incarnation(inc, T0 - 10 * S, -1, false, List.of()));
        String w = inc + "/" + worker;
        log.add(String.join(" ", "B", Long.toString(start), w, topic, Integer.toString(slot), key, Long.toString(seq),
                Integer.toString(attempt), Long.toString(redisNowMs), Long.toString(dueMs), Long.toString(fixedMs),
                Long.toString(leaseMs), "1"));
        if (end >= 0) {
            log.add(String.join(" ", "E", Long.toString(end), w, topic, Integer.toString(slot), key, Long.toString(seq),
                    Integer.toString(attempt), outcome));
        }
    }

    /** A successful 1 ms delivery by worker thread rmq-p-0 of {@code inc}, in slot 0. */
    private void consumed(String inc, String topic, String key, long seq, long start) {
        consumed(inc, topic, 0, key, seq, start);
    }

    private void consumed(String inc, String topic, int slot, String key, long seq, long start) {
        ran(inc, "rmq-p-0", topic, slot, key, seq, 1, start, start + 1000, "ok", start / 1000, -1, 0);
    }

    /** A line of rmq's log (slf4j-simple's format) in the stderr file of {@code inc}. */
    private void logged(String inc, long at, String thread, String message) {
        String time = LOG_TIME.format(Instant.ofEpochMilli(at / 1000).atOffset(ZoneOffset.UTC));
        stderr.computeIfAbsent(inc, k -> new ArrayList<>()).add(time + " [" + thread + "] WARN SlotWorker - " + message);
    }

    private void sessionLost(String inc, long at) {
        consumers.computeIfAbsent(inc, k -> new ArrayList<>()).add("Z " + at + " " + inc + " LOST 0x1");
    }

    private void fault(FaultKind kind, String target, long inject, long heal, Set<String> slots) {
        faults.add(new FaultRecord(faults.size() + 1, kind, target, inject, heal, 3 * S, slots, ""));
    }

    private InvariantChecker.Result check() throws IOException {
        Path producerLog = dir.resolve("producer.events");
        Files.write(producerLog, producer);
        Map<String, Path> logs = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> entry : consumers.entrySet()) {
            Path file = dir.resolve("consumer-" + entry.getKey() + ".events");
            Files.write(file, entry.getValue());
            logs.put(entry.getKey(), file);
        }
        Map<String, Path> logFiles = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> entry : stderr.entrySet()) {
            Path file = dir.resolve("consumer-" + entry.getKey() + ".log");
            Files.write(file, entry.getValue());
            logFiles.put(entry.getKey(), file);
        }
        return InvariantChecker.check(new InvariantChecker.Inputs(List.of(producerLog), logs, logFiles, incarnations,
                faults, dead, T0 + 1000 * S));
    }

    // ---- accounting --------------------------------------------------------------------------------------------

    @Test
    void aCleanRunPassesAndCountsMergesAndMessages() throws IOException {
        sent(0, MERGE, "n.m.1", false, T0, 1000);
        sent(1, MERGE, "n.m.1", true, T0 + 100_000, 1000);
        sent(2, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", MERGE, "n.m.1", 1, T0 + 2 * S);
        consumed("c1-1", PRIORITY, "n.p.2", 2, T0 + 3 * S);

        InvariantChecker.Result result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("sent")).isEqualTo(3);
        assertThat(result.figure("merged")).isEqualTo(1);
        assertThat(result.figure("consumed_unique")).isEqualTo(2);
        assertThat(result.figure("lost")).isZero();
    }

    @Test
    void aMessageNeitherConsumedNorDeadIsLost() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
        assertThat(result.figure("lost_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("lost without a master SIGKILL"));
    }

    @Test
    void aLostDurableMessageFailsEvenWhenTheMasterOfItsSlotWasKilledRightAfterTheSend() throws IOException {
        sent(0, CLUSTER_PRIORITY, "d.p.1", 3, false, true, T0, 50);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost_durable")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("durable message(s) lost"));
    }

    @Test
    void aNonDurableSendAcknowledgedJustBeforeItsMasterWasKilledMayBeLost() throws IOException {
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        sent(1, CLUSTER_PRIORITY, "n.p.2", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.2", 1, T0 + S);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
        assertThat(result.figure("lost_non_durable")).isEqualTo(1);
        assertThat(result.figure("lost_unexplained")).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aMasterKillExcusesNoLossOfAnotherMastersSlotNorOfASendReplicatedLongBefore() throws IOException {
        // slot 5 lived on another master; the send to slot 3 was acknowledged 10 s before the kill
        sent(0, CLUSTER_PRIORITY, "n.p.1", 5, false, false, T0 + 10 * S, 50);
        sent(1, CLUSTER_PRIORITY, "n.p.2", 3, false, false, T0, 50);
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + 11 * S, T0 + 15 * S, Set.of(CLUSTER_PRIORITY + "_3"));

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost_non_durable")).isZero();
        assertThat(result.figure("lost_unexplained")).isEqualTo(2);
        assertThat(result.failures()).anyMatch(f -> f.startsWith("2 message(s) lost without a master SIGKILL"));
    }

    @Test
    void aMessageInTheDeadQueueWithAReasonIsAccountedFor() throws IOException {
        sent(0, FIXED, "n.f.1", false, T0, T0 / 1000 + 1000);
        dead.add(new DeadEntry(FIXED, 0, "n.f.1", "seq=0;work=0;poison=1;fixed=0", "poison message", 3));
        sent(1, FIXED, "n.f.2", false, T0, T0 / 1000 + 1000);
        dead.add(new DeadEntry(FIXED, 0, "n.f.2", "seq=1;work=0;poison=1;fixed=0", "", 3));

        InvariantChecker.Result result = check();

        assertThat(result.figure("dead")).isEqualTo(2);
        assertThat(result.figure("lost")).isZero();
        assertThat(result.failures()).containsExactly("1 dead message(s) without a recorded reason");
    }

    @Test
    void aPriorityMessageWhoseFailedDeliveryMergedIntoANewerSendIsSuperseded() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        ran("c1-1", "rmq-p-0", PRIORITY, 0, "n.p.1", 0, 1, T0 + S, T0 + S + 100, "err", T0 / 1000 + 1000, -1, 0);
        sent(1, PRIORITY, "n.p.1", false, T0 + S + 50, 60);
        consumed("c1-1", PRIORITY, "n.p.1", 1, T0 + 2 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost")).isZero();
        assertThat(result.details().get("superseded")).isEqualTo(1L);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aTimedMessageThatWasNotYetDueWhenItsKeyWasSentAgainCountsAsLost() throws IOException {
        // the second send did not merge, so the first was no longer waiting; yet it could not have been polled
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        sent(1, MERGE, "n.m.1", false, T0 + S, 3000);
        consumed("c1-1", MERGE, "n.m.1", 1, T0 + 5 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figure("lost")).isEqualTo(1);
    }

    @Test
    void aFailedSendThatWasAppliedAnywayDoesNotCount() throws IOException {
        failedSend(0, MERGE, "n.m.1", T0, 1000);
        consumed("c1-1", MERGE, "n.m.1", 0, T0 + 2 * S);

        InvariantChecker.Result result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("sent")).isZero();
        assertThat(result.details().get("consumed_without_receipt")).isEqualTo(1L);
        assertThat(result.details().get("send_failures")).isEqualTo(1L);
    }

    // ---- duplicates ----------------------------------------------------------------------------------------------

    @Test
    void aDuplicateOutsideEveryFaultWindowIsAViolation() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 10 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("duplicate(s) outside every window"));
    }

    @Test
    void aDuplicateAfterTheConsumerThatRanItWasKilledBeforeItsCommitIsAllowedAndCounted() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 10 * S);
        fault(FaultKind.KILL, "c1-1", T0 + S + 500 * MS, T0 + 4 * S, Set.of());

        InvariantChecker.Result result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("kill", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void anUnexplainedDuplicateFailsTheRunEvenWhileUnrelatedFaultsHappenAtTheSameTime() throws IOException {
        String slot = CLUSTER_PRIORITY + "_3";
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + S);
        consumed("c2-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + 6 * S);
        // every fault strikes while the first delivery's commit was due, but none strikes that delivery
        fault(FaultKind.KILL, "c2-1", T0 + S + 200 * MS, T0 + 3 * S, Set.of());
        fault(FaultKind.STOP, "c3-1", T0 + S + 300 * MS, T0 + 8 * S, Set.of());
        fault(FaultKind.ZK_EXPIRE, "c3-1", T0 + S + 400 * MS, T0 + S + 400 * MS, Set.of());
        fault(FaultKind.REDIS_RESTART, "standalone redis", T0 + S, T0 + 2 * S, Set.of(PRIORITY + "_0", PRIORITY + "_3"));
        fault(FaultKind.MASTER_KILL, "master :7002", T0 + S, T0 + 5 * S, Set.of(CLUSTER_PRIORITY + "_5"));
        fault(FaultKind.FAILOVER, "master :7003", T0 + S, T0 + 2 * S, Set.of(CLUSTER_PRIORITY + "_6"));
        fault(FaultKind.ZK_QUORUM, "zookeeper", T0 + S, T0 + 7 * S, Set.of());
        sessionLost("c2-1", T0 + 5 * S);
        // the consumer that ran it reported trouble, but of another slot and of another worker thread
        logged("c1-1", T0 + 2 * S, "rmq-p-0", "worker p-0 could not acknowledge 1 message(s) of " + CLUSTER_PRIORITY
                + "_4; their leases will recover them: timeout");
        logged("c1-1", T0 + 2 * S, "rmq-pc-1", "worker pc-1 could not acknowledge 1 message(s) of " + slot
                + "; their leases will recover them: timeout");

        InvariantChecker.Result result = check();

        assertThat(result.figure("duplicates")).isEqualTo(1);
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("1 duplicate(s) outside every window"));
    }

    @Test
    void aKillOfTheSameConsumerLongAfterTheCommitWasDueExplainsNothing() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        fault(FaultKind.KILL, "c1-1", T0 + 20 * S, T0 + 22 * S, Set.of());
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 30 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aRedisRestartExplainsADuplicateOnlyWhenTheCommitWasDueDuringItsOutageOnThatNode() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        // n.p.1: handled just before the restart, its commit due while Redis was down
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + 9 * S);
        // n.p.2: handled and due to be committed long before
        consumed("c1-1", PRIORITY, "n.p.2", 1, T0 + S);
        fault(FaultKind.REDIS_RESTART, "standalone redis", T0 + 10 * S, T0 + 11 * S, Set.of(PRIORITY + "_0"));
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 15 * S);
        consumed("c2-1", PRIORITY, "n.p.2", 1, T0 + 15 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("redis-restart", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aMasterKillExplainsADuplicateWhoseCommitMayNotHaveReachedTheReplica() throws IOException {
        sent(0, CLUSTER_PRIORITY, "n.p.1", 3, false, false, T0, 50);
        consumed("c1-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + S);
        // the lease ran to T0 + 4 s, so the commit went out by T0 + 5 s; the master died 1.5 s later
        fault(FaultKind.MASTER_KILL, "master :7001", T0 + 6500 * MS, T0 + 12 * S, Set.of(CLUSTER_PRIORITY + "_3"));
        consumed("c2-1", CLUSTER_PRIORITY, 3, "n.p.1", 0, T0 + 15 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("master-kill", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aQuorumLossExplainsADuplicateOnlyForTheConsumerThatLostItsSessionAndHadItsCommitFenced() throws IOException {
        sent(0, PRIORITY, "n.p.1", 0, false, false, T0, 50);
        sent(1, PRIORITY, "n.p.2", 1, false, false, T0, 50);
        consumed("c1-1", PRIORITY, 0, "n.p.1", 0, T0 + S);
        consumed("c2-1", PRIORITY, 1, "n.p.2", 1, T0 + S);
        fault(FaultKind.ZK_QUORUM, "zookeeper", T0 + S, T0 + 7 * S, Set.of());
        sessionLost("c1-1", T0 + 5 * S);
        logged("c1-1", T0 + 8 * S, "rmq-p-0", "worker p-0 lost " + PRIORITY + "_0 before acknowledging 1 message(s);"
                + " they will be redelivered");
        // c2-1 kept its session: its commit cannot have been fenced by the quorum loss
        logged("c2-1", T0 + 8 * S, "rmq-p-0", "worker p-0 lost " + PRIORITY + "_1 before acknowledging 1 message(s);"
                + " they will be redelivered");
        consumed("c3-1", PRIORITY, 0, "n.p.1", 0, T0 + 10 * S);
        consumed("c3-1", PRIORITY, 1, "n.p.2", 1, T0 + 10 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("zk-quorum", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aLateAckReportExplainsADuplicateOfThatKeyOnly() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        consumed("c1-1", PRIORITY, "n.p.2", 1, T0 + S + 10 * MS);
        logged("c1-1", T0 + 5 * S, "rmq-p-0", "worker p-0: the lease of 'n.p.1' in " + PRIORITY + "_0 ran out before"
                + " its ack; it is redelivered");
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 8 * S);
        consumed("c2-1", PRIORITY, "n.p.2", 1, T0 + 8 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("lease-expired", 1L));
        assertThat(result.figure("duplicates_unexplained")).isEqualTo(1);
    }

    @Test
    void aFailedAckOfTheSlotByTheWorkerThatRanTheMessageExplainsItsDuplicate() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        consumed("c1-1", PRIORITY, "n.p.1", 0, T0 + S);
        logged("c1-1", T0 + 4 * S, "rmq-p-0", "worker p-0 could not acknowledge 3 message(s) of " + PRIORITY
                + "_0; their leases will recover them: RedisTimeoutException");
        consumed("c2-1", PRIORITY, "n.p.1", 0, T0 + 8 * S);

        InvariantChecker.Result result = check();

        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("ack-failed", 1L));
        assertThat(result.failures()).isEmpty();
    }

    // ---- exclusivity -------------------------------------------------------------------------------------------

    @Test
    void twoWorkersInOneSlotAtOnceIsAnOverlapViolation() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        ran("c1-1", "rmq-p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 3 * S, "ok", T0 / 1000 + 1000, -1, 0);
        ran("c2-1", "rmq-p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", T0 / 1000 + 2000, -1, 0);

        InvariantChecker.Result result = check();

        assertThat(result.figure("overlap_violations")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("two workers ran one slot at once"));
    }

    @Test
    void aHandlerFrozenBySigstopPastItsLeaseIsCountedAndPassesWhenItsMessageIsRedelivered() throws IOException {
        pausedHandlerThenNewOwnerAt7s(4000);
        ran("c2-1", "rmq-p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 7 * S + 20, T0 + 7 * S + 30, "ok", T0 / 1000 + 7000, -1, 0);
        fault(FaultKind.STOP, "c1-1", T0 + 2 * S, T0 + 8 * S, Set.of());

        InvariantChecker.Result result = check();

        assertThat(result.figure("overlap_violations")).isZero();
        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(2);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isEqualTo(2);
        assertThat(result.figures().get("duplicates_by_cause")).isEqualTo(Map.of("stop", 1L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aPausedHandlerOverlapWhoseMessageWasNotRedeliveredFailsTheRun() throws IOException {
        pausedHandlerThenNewOwnerAt7s(4000);

        InvariantChecker.Result result = check();

        assertThat(result.figure("paused_handler_overlaps")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps_redelivered")).isZero();
        assertThat(result.failures()).anyMatch(f -> f.contains("was not redelivered"));
    }

    @Test
    void aNewOwnerThatStartsBeforeAPausedHandlersLeaseRanOutIsAViolation() throws IOException {
        // leased until T0 + 9 s: the new owner should have waited for it
        pausedHandlerThenNewOwnerAt7s(9000);

        InvariantChecker.Result result = check();

        assertThat(result.figure("overlap_violations")).isEqualTo(1);
        assertThat(result.figure("paused_handler_overlaps")).isZero();
    }

    /**
     * c1-1 starts n.p.1 at +1 s, leased until +{@code leaseMs}, and is frozen from +2 s to +8 s; c2-1 runs n.p.2
     * in the same slot at +7 s.
     */
    private void pausedHandlerThenNewOwnerAt7s(long leaseMs) {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        sent(1, PRIORITY, "n.p.2", false, T0, 50);
        ran("c1-1", "rmq-p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, T0 + 9 * S, "ok", T0 / 1000 + 1000, -1, 0,
                T0 / 1000 + leaseMs);
        incarnations.put("c1-1", new Incarnation("c1-1", T0 - S, -1, false, List.<long[]>of(new long[] {T0 + 2 * S, T0 + 8 * S})));
        ran("c2-1", "rmq-p-0", PRIORITY, 3, "n.p.2", 1, 1, T0 + 7 * S, T0 + 7 * S + 10, "ok", T0 / 1000 + 7000, -1, 0);
    }

    @Test
    void aHandlerKilledMidMessageEndsWithItsProcess() throws IOException {
        sent(0, PRIORITY, "n.p.1", false, T0, 50);
        ran("c1-1", "rmq-p-0", PRIORITY, 3, "n.p.1", 0, 1, T0 + S, -1, "none", T0 / 1000 + 1000, -1, 0);
        incarnations.put("c1-1", new Incarnation("c1-1", T0 - S, T0 + 2 * S, true, List.of()));
        ran("c2-1", "rmq-p-0", PRIORITY, 3, "n.p.1", 0, 2, T0 + 6 * S, T0 + 6 * S + 10, "ok", T0 / 1000 + 6000, -1, 0);

        InvariantChecker.Result result = check();

        assertThat(result.failures()).isEmpty();
        assertThat(result.figure("kills_mid_message")).isEqualTo(1);
    }

    // ---- due times ---------------------------------------------------------------------------------------------

    @Test
    void aDeliveryBeforeItsFixedTimeByTheRedisClockIsEarly() throws IOException {
        long due = T0 / 1000 + 3000;
        sent(0, FIXED, "n.f.1", false, T0, due);
        ran("c1-1", "rmq-f-0", FIXED, 0, "n.f.1", 0, 1, T0 + 2 * S, T0 + 2 * S + 10, "ok", due - 1, due, due);

        InvariantChecker.Result result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.failures()).anyMatch(f -> f.contains("before the due time"));
    }

    @Test
    void aRangeMergeDeliveryBeforeItsSendPlusTimeRangeIsEarlyWhateverDueTimeRmqReports() throws IOException {
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        // rmq reports the message due at +2.4 s, and the handler starts at +2.5 s by the Redis clock
        ran("c1-1", "rmq-m-0", MERGE, 0, "n.m.1", 0, 1, T0 + 2500 * MS, T0 + 2501 * MS, "ok", T0 / 1000 + 2500,
                T0 / 1000 + 2400, 0);

        InvariantChecker.Result result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.details().get("early_by_rule")).isEqualTo(Map.of("before its creating send + timeRange", 1L));
    }

    @Test
    void aRangeMergeKeepsTheDueTimeOfTheSendThatCreatedIt() throws IOException {
        sent(0, MERGE, "n.m.1", false, T0, 3000);
        sent(1, MERGE, "n.m.1", true, T0 + 500 * MS, 1000);
        // the merge's own range would make it due at +1.5 s; the message was due at +3 s and is delivered then
        ran("c1-1", "rmq-m-0", MERGE, 0, "n.m.1", 1, 1, T0 + 3000 * MS, T0 + 3001 * MS, "ok", T0 / 1000 + 3000,
                T0 / 1000 + 3000, 0);
        sent(2, MERGE, "n.m.2", false, T0, 3000);
        sent(3, MERGE, "n.m.2", true, T0 + 500 * MS, 1000);
        ran("c1-1", "rmq-m-0", MERGE, 0, "n.m.2", 3, 1, T0 + 2000 * MS, T0 + 2001 * MS, "ok", T0 / 1000 + 2000,
                T0 / 1000 + 1500, 0);

        InvariantChecker.Result result = check();

        assertThat(result.figure("early")).isEqualTo(1);
        assertThat(result.details().get("early_examples").toString()).contains("n.m.2").doesNotContain("n.m.1 ");
    }
}
